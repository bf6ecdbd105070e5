package matchspec

import (
	"slices"
	"strings"

	"github.com/erlsext/sext/term"
)

// Guards and bodies are expressions over the head's variables: the atoms
// '$N', '$_' (the object) and '$$' (every variable's value, a list in '$N'
// order); constants ({const, X}, or any term that is no variable, call or
// construction); calls {Function, Arg...}; and constructions: {{A, B}}
// builds the tuple {A, B} from the values of A and B, a list or map
// builds one from its elements' values.

type op uint8

const (
	opConst op = iota
	opVar
	opWhole // '$_'
	opAll   // '$$'
	opTuple // build a tuple of args' values
	opList  // build a list of args' values; with tail, the last is its tail
	opMap   // build a map: args are key, value, key, value, ...
	opDesc  // build a Desc of args[0]
	opCall  // fn(args...)
)

type expr struct {
	op   op
	fn   fn
	val  term.Term
	slot int
	args []*expr
	tail bool
}

// env is what an expression sees: the object and the head's bindings.
type env struct {
	whole term.Term
	slots []term.Term
	n     int // variables of the current clause
}

// compiler turns one guard or body expression into an expr tree, keeping
// the path to the current subterm for error messages.
type compiler struct {
	clause int
	where  string
	path   []string
	slotOf map[string]int
}

func (c *compiler) fail(err error, detail string) error {
	w := c.where
	if len(c.path) > 0 {
		w += ": " + strings.Join(c.path, ", ")
	}
	return &SpecError{Clause: c.clause, Where: w, Err: err, Detail: detail}
}

func (c *compiler) sub(label string, i int, t term.Term) (*expr, error) {
	c.path = append(c.path, label+" "+itoa(i))
	e, err := c.expr(t)
	c.path = c.path[:len(c.path)-1]
	return e, err
}

func (c *compiler) expr(t term.Term) (*expr, error) {
	switch t.Kind() {
	case term.KindAtom:
		name := t.Atom()
		switch {
		case name == "$_":
			return &expr{op: opWhole}, nil
		case name == "$$":
			return &expr{op: opAll}, nil
		case name == "_":
			return nil, c.fail(ErrSpec, "'_' belongs in heads; guards and bodies use '$N'")
		case varName(name):
			slot, ok := c.slotOf[name]
			if !ok {
				return nil, c.fail(ErrUnbound, "'"+name+"'")
			}
			return &expr{op: opVar, slot: slot}, nil
		}
		return &expr{op: opConst, val: t}, nil
	case term.KindTuple:
		elems := t.Elems()
		switch {
		case len(elems) == 0:
			return nil, c.fail(ErrSpec, "{} is no expression; {{}} builds the empty tuple")
		case len(elems) == 1 && elems[0].Kind() == term.KindTuple:
			inner := elems[0].Elems()
			e := &expr{op: opTuple, args: make([]*expr, len(inner))}
			for i, x := range inner {
				var err error
				if e.args[i], err = c.sub("element", i+1, x); err != nil {
					return nil, err
				}
			}
			return e, nil
		case elems[0].Kind() != term.KindAtom:
			return nil, c.fail(ErrSpec, brief(t)+": a call starts with a function name; {{...}} builds a tuple")
		case len(elems) == 2 && elems[0].Atom() == "const":
			if hasPrefix(elems[1]) {
				return nil, c.fail(ErrSpec, brief(t)+": a binary prefix is a pattern, which only a head may hold")
			}
			return &expr{op: opConst, val: elems[1]}, nil
		}
		name := elems[0].Atom()
		f, ok := lookupFn(name, len(elems)-1)
		if !ok {
			return nil, c.fail(ErrFunction, name+"/"+itoa(len(elems)-1))
		}
		e := &expr{op: opCall, fn: f, args: make([]*expr, len(elems)-1)}
		for i, x := range elems[1:] {
			var err error
			if e.args[i], err = c.sub("argument", i+1, x); err != nil {
				return nil, err
			}
		}
		return e, nil
	case term.KindList:
		elems := t.Elems()
		if len(elems) == 0 {
			return &expr{op: opConst, val: t}, nil
		}
		e := &expr{op: opList, tail: !t.IsProper()}
		for i, x := range elems {
			a, err := c.sub("element", i+1, x)
			if err != nil {
				return nil, err
			}
			e.args = append(e.args, a)
		}
		if e.tail {
			a, err := c.sub("tail", 1, t.Tail())
			if err != nil {
				return nil, err
			}
			e.args = append(e.args, a)
		}
		return e, nil
	case term.KindMap:
		e := &expr{op: opMap}
		for i, en := range t.Entries() {
			k, err := c.sub("key", i+1, en.Key)
			if err != nil {
				return nil, err
			}
			v, err := c.sub("value", i+1, en.Value)
			if err != nil {
				return nil, err
			}
			e.args = append(e.args, k, v)
		}
		return e, nil
	case term.KindDesc:
		a, err := c.sub("inner", 1, t.Inner())
		if err != nil {
			return nil, err
		}
		return &expr{op: opDesc, args: []*expr{a}}, nil
	case term.KindBinaryPrefix:
		// No value: Erlang has no <<"ali",_/binary>> outside a pattern.
		return nil, c.fail(ErrSpec, brief(t)+": a binary prefix is a pattern, which only a head may hold")
	}
	return &expr{op: opConst, val: t}, nil
}

// hasPrefix reports whether t holds a binary prefix anywhere. The
// recursion is bounded by the nesting Compile checked first.
func hasPrefix(t term.Term) bool {
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return true
	case term.KindTuple:
		return slices.ContainsFunc(t.Elems(), hasPrefix)
	case term.KindList:
		return slices.ContainsFunc(t.Elems(), hasPrefix) || !t.IsProper() && hasPrefix(t.Tail())
	case term.KindMap:
		return slices.ContainsFunc(t.Entries(), func(e term.MapEntry) bool { return hasPrefix(e.Key) || hasPrefix(e.Value) })
	case term.KindDesc:
		return hasPrefix(t.Inner())
	}
	return false
}

// eval returns the expression's value, or false if evaluating it raises
// an exception (badarg and the like), which makes a guard false. In a
// body (body set) a call that raises is the atom 'EXIT' instead, where it
// stands, as ets:select has it: [{{'$1', {hd, []}}}] gives {V, 'EXIT'}.
func (e *expr) eval(en *env, body bool) (term.Term, bool) {
	switch e.op {
	case opConst:
		return e.val, true
	case opVar:
		return en.slots[e.slot], true
	case opWhole:
		return en.whole, true
	case opAll:
		return term.List(append([]term.Term(nil), en.slots[:en.n]...)...), true
	case opTuple, opList, opMap, opDesc:
		vals := make([]term.Term, len(e.args))
		for i, a := range e.args {
			v, ok := a.eval(en, body)
			if !ok {
				return term.Term{}, false
			}
			vals[i] = v
		}
		switch e.op {
		case opTuple:
			return term.Tuple(vals...), true
		case opList:
			if e.tail {
				return term.ListWithTail(vals...), true
			}
			return term.List(vals...), true
		case opDesc:
			return term.Desc(vals[0]), true
		}
		entries := make([]term.MapEntry, len(vals)/2)
		for i := range entries {
			entries[i] = term.MapEntry{Key: vals[2*i], Value: vals[2*i+1]}
		}
		return term.Map(entries...), true
	}
	v, ok := e.call(en, body)
	if !ok && body {
		return atomExit, true
	}
	return v, ok
}
