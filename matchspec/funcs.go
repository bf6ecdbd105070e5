package matchspec

import (
	"math"

	"github.com/erlsext/sext/term"
)

// fn is a guard function or operator.
type fn uint8

const (
	fLT fn = iota // comparisons first: the planner reads them
	fLE
	fGT
	fGE
	fEq    // ==
	fNe    // /=
	fExact // =:=
	fNotExact
	fIsInteger
	fIsFloat
	fIsNumber
	fIsAtom
	fIsBinary
	fIsBitstring
	fIsTuple
	fIsList
	fIsMap
	fIsPid
	fIsPort
	fIsReference
	fIsBoolean
	fAndalso
	fOrelse
	fAnd
	fOr
	fXor
	fNot
	fElement
	fSize
	fTupleSize
	fByteSize
	fBitSize
	fLength
	fMapSize
	fHd
	fTl
	fAbs
)

type fnInfo struct {
	name  string
	arity int
}

var fns = [...]fnInfo{
	fLT: {"<", 2}, fLE: {"=<", 2}, fGT: {">", 2}, fGE: {">=", 2},
	fEq: {"==", 2}, fNe: {"/=", 2}, fExact: {"=:=", 2}, fNotExact: {"=/=", 2},
	fIsInteger: {"is_integer", 1}, fIsFloat: {"is_float", 1}, fIsNumber: {"is_number", 1},
	fIsAtom: {"is_atom", 1}, fIsBinary: {"is_binary", 1}, fIsBitstring: {"is_bitstring", 1},
	fIsTuple: {"is_tuple", 1}, fIsList: {"is_list", 1}, fIsMap: {"is_map", 1},
	fIsPid: {"is_pid", 1}, fIsPort: {"is_port", 1}, fIsReference: {"is_reference", 1},
	fIsBoolean: {"is_boolean", 1},
	fAndalso:   {"andalso", 2}, fOrelse: {"orelse", 2},
	fAnd: {"and", 2}, fOr: {"or", 2}, fXor: {"xor", 2}, fNot: {"not", 1},
	fElement: {"element", 2}, fSize: {"size", 1}, fTupleSize: {"tuple_size", 1},
	fByteSize: {"byte_size", 1}, fBitSize: {"bit_size", 1}, fLength: {"length", 1},
	fMapSize: {"map_size", 1}, fHd: {"hd", 1}, fTl: {"tl", 1}, fAbs: {"abs", 1},
}

func lookupFn(name string, arity int) (fn, bool) {
	for i, f := range fns {
		if f.name == name && f.arity == arity {
			return fn(i), true
		}
	}
	return 0, false
}

// call evaluates a call. The short-circuit operators evaluate their second
// argument only when they must; every other call evaluates all arguments
// first, and an exception in any of them is the call's.
func (e *expr) call(en *env, body bool) (term.Term, bool) {
	if e.fn == fAndalso || e.fn == fOrelse {
		a, ok := e.args[0].eval(en, body)
		if !ok {
			return term.Term{}, false
		}
		b, isBool := boolOf(a)
		switch {
		case !isBool:
			return term.Term{}, false // badarg
		case b == (e.fn == fOrelse):
			return a, true
		}
		return e.args[1].eval(en, body) // its value as it is: Erlang checks only the left
	}
	var argv [2]term.Term
	for i, a := range e.args {
		v, ok := a.eval(en, body)
		if !ok {
			return term.Term{}, false
		}
		argv[i] = v
	}
	// Erlang's term order: numbers by value (1 == 1.0) at any depth, map
	// keys exactly, pids, ports and references as erts orders them. The
	// planner bounds a scan only by constants whose Erlang order agrees
	// with the encoding's (numbers, atoms, binaries, []), so filtering in
	// this order never loses a key.
	x, y := argv[0], argv[1]
	switch e.fn {
	case fLT:
		return term.Bool(term.CompareErlang(x, y) < 0), true
	case fLE:
		return term.Bool(term.CompareErlang(x, y) <= 0), true
	case fGT:
		return term.Bool(term.CompareErlang(x, y) > 0), true
	case fGE:
		return term.Bool(term.CompareErlang(x, y) >= 0), true
	case fEq:
		return term.Bool(term.CompareErlang(x, y) == 0), true
	case fNe:
		return term.Bool(term.CompareErlang(x, y) != 0), true
	case fExact:
		return term.Bool(term.Equal(x, y)), true
	case fNotExact:
		return term.Bool(!term.Equal(x, y)), true
	case fIsInteger:
		return term.Bool(x.Kind() == term.KindInt), true
	case fIsFloat:
		return term.Bool(x.Kind() == term.KindFloat), true
	case fIsNumber:
		return term.Bool(isNumber(x.Kind())), true
	case fIsAtom:
		return term.Bool(x.Kind() == term.KindAtom), true
	case fIsBinary:
		return term.Bool(x.Kind() == term.KindBinary && x.BitLen()%8 == 0), true
	case fIsBitstring:
		return term.Bool(x.Kind() == term.KindBinary), true
	case fIsTuple:
		return term.Bool(x.Kind() == term.KindTuple), true
	case fIsList:
		return term.Bool(x.Kind() == term.KindList), true
	case fIsMap:
		return term.Bool(x.Kind() == term.KindMap), true
	case fIsPid:
		return term.Bool(x.Kind() == term.KindPid), true
	case fIsPort:
		return term.Bool(x.Kind() == term.KindPort), true
	case fIsReference:
		return term.Bool(x.Kind() == term.KindRef), true
	case fIsBoolean:
		_, ok := boolOf(x)
		return term.Bool(ok), true
	case fAnd, fOr, fXor:
		a, okA := boolOf(x)
		b, okB := boolOf(y)
		if !okA || !okB {
			return term.Term{}, false
		}
		switch e.fn {
		case fAnd:
			return term.Bool(a && b), true
		case fOr:
			return term.Bool(a || b), true
		}
		return term.Bool(a != b), true
	case fNot:
		a, ok := boolOf(x)
		return term.Bool(!a), ok
	case fElement:
		if !x.IsInt64() || y.Kind() != term.KindTuple || x.Int64() < 1 || x.Int64() > int64(y.Len()) {
			return term.Term{}, false
		}
		return y.Elems()[x.Int64()-1], true
	case fSize:
		switch x.Kind() {
		case term.KindTuple:
			return term.Int(int64(x.Len())), true
		case term.KindBinary:
			return term.Int(int64(x.BitLen() / 8)), true
		}
		return term.Term{}, false
	case fTupleSize:
		if x.Kind() != term.KindTuple {
			return term.Term{}, false
		}
		return term.Int(int64(x.Len())), true
	case fByteSize:
		if x.Kind() != term.KindBinary {
			return term.Term{}, false
		}
		return term.Int(int64(x.BitLen()+7) / 8), true
	case fBitSize:
		if x.Kind() != term.KindBinary {
			return term.Term{}, false
		}
		return term.Int(int64(x.BitLen())), true
	case fLength:
		if x.Kind() != term.KindList || !x.IsProper() {
			return term.Term{}, false
		}
		return term.Int(int64(x.Len())), true
	case fMapSize:
		if x.Kind() != term.KindMap {
			return term.Term{}, false
		}
		return term.Int(int64(x.Len())), true
	case fHd, fTl:
		if x.Kind() != term.KindList || x.Len() == 0 {
			return term.Term{}, false
		}
		es := x.Elems()
		if e.fn == fHd {
			return es[0], true
		}
		rest := es[1:]
		return term.ImproperList(rest[:len(rest):len(rest)], x.Tail()), true
	case fAbs:
		switch x.Kind() {
		case term.KindFloat:
			if f := x.Float(); f < 0 { // erts negates below zero only: abs(-0.0) is -0.0
				return term.Float(-f), true
			}
			return x, true
		case term.KindInt:
			if x.IsInt64() && x.Int64() != math.MinInt64 {
				return term.Int(max(x.Int64(), -x.Int64())), true
			}
			b := x.BigInt() // a copy of our own
			return term.BigInt(b.Abs(b)), true
		}
		return term.Term{}, false
	}
	return term.Term{}, false
}

// boolOf returns the value of the atoms true and false, and whether t is
// one of them.
func boolOf(t term.Term) (value, ok bool) {
	if t.Kind() != term.KindAtom {
		return false, false
	}
	switch t.Atom() {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}
