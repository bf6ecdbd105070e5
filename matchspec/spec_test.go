package matchspec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

func mustTerm(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return x
}

// TestMatchSemantics pins the rules the issue names, one case each;
// "nomatch" means no clause matched.
func TestMatchSemantics(t *testing.T) {
	tests := []struct {
		name, spec, obj, want string
	}{
		{"== is arithmetic", `[{{'$1'},[{'==','$1',1}],['$1']}]`, `{1.0}`, `1.0`},
		{"=:= is exact", `[{{'$1'},[{'=:=','$1',1}],['$1']}]`, `{1.0}`, `nomatch`},
		{"== at depth", `[{{'$1'},[{'==','$1',[1,{{2}}]}],[ok]}]`, `{[1.0,{2.0}]}`, `ok`},
		{"1 < 1.0 is false", `[{{'$1'},[{'<','$1',1.0}],[ok]}]`, `{1}`, `nomatch`},
		{"=< across int and float", `[{{'$1'},[{'=<','$1',1.0}],[ok]}]`, `{1}`, `ok`},
		{"big int against float", `[{{'$1'},[{'>','$1',9007199254740992.0}],[ok]}]`, `{9007199254740993}`, `ok`},
		{"number below atom", `[{{'$1'},[{'<','$1',a}],[ok]}]`, `{1000000}`, `ok`},
		// Erlang's order of pids, ports and references, not the bytes'
		// (OTP 25's ets:match_spec_run gives ok for all three).
		{"pids by serial before id", `[{{'$1'},[{'<','$1',#Pid<'a@h',30,2,0>}],[ok]}]`, `{#Pid<'a@h',900,0,0>}`, `ok`},
		{"ports by creation before id", `[{{'$1'},[{'<','$1',#Port<'b@h',433,3>}],[ok]}]`, `{#Port<'b@h',722,1>}`, `ok`},
		{"a reference == one with a zero high word", `[{{'$1'},[{'==','$1',#Ref<'a@h',1,7>}],[ok]}]`, `{#Ref<'a@h',1,7,0>}`, `ok`},
		{"=/= and /=", `[{{'$1'},[{'/=','$1',2},{'=/=','$1',2.0}],[ok]}]`, `{2.0}`, `nomatch`},
		{"head matches exactly", `[{{1},[],[ok]}]`, `{1.0}`, `nomatch`},
		{"repeated variable", `[{{'$1','$1'},[],[ok]}]`, `{a,b}`, `nomatch`},
		{"a raising guard is false", `[{{'$1'},[{'==',{hd,'$1'},1}],[ok]},{'_',[],[other]}]`, `{[]}`, `other`},
		{"orelse is not rescued", `[{{'$1'},[{'orelse',{'==',{hd,'$1'},1},true}],[ok]}]`, `{[]}`, `nomatch`},
		{"orelse short-circuits", `[{{'$1'},[{'orelse',true,{hd,'$1'}}],[ok]}]`, `{[]}`, `ok`},
		{"or is strict", `[{{'$1'},[{'or',true,{hd,'$1'}}],[ok]}]`, `{[]}`, `nomatch`},
		{"andalso's right side must be true", `[{{'$1'},[{'andalso',true,'$1'}],[ok]}]`, `{1}`, `nomatch`},
		{"xor", `[{{'$1','$2'},[{'xor','$1','$2'}],[ok]}]`, `{true,false}`, `ok`},
		{"not of a non-boolean fails", `[{{'$1'},[{'not','$1'}],[ok]}]`, `{1}`, `nomatch`},
		{"element/2", `[{{'$1'},[{'==',{element,2,'$1'},b}],[ok]}]`, `{{a,b}}`, `ok`},
		{"element/2 out of range", `[{{'$1'},[{'==',{element,3,'$1'},b}],[ok]}]`, `{{a,b}}`, `nomatch`},
		{"size of a bitstring: whole bytes", `[{{'$1'},[],[{size,'$1'}]}]`, `{<<1,2,3:4>>}`, `2`},
		{"byte_size rounds up", `[{{'$1'},[],[{byte_size,'$1'}]}]`, `{<<1,2,3:4>>}`, `3`},
		{"bit_size", `[{{'$1'},[],[{bit_size,'$1'}]}]`, `{<<1,2,3:4>>}`, `20`},
		{"length of an improper list fails", `[{{'$1'},[{'>',{length,'$1'},0}],[ok]}]`, `{[a|b]}`, `nomatch`},
		{"tl of an improper list", `[{{'$1'},[],[{tl,'$1'}]}]`, `{[a,b|c]}`, `[b|c]`},
		{"abs", `[{{'$1'},[],[{abs,'$1'}]}]`, `{-9223372036854775808}`, `9223372036854775808`},
		{"abs of -0.0 is -0.0, as in erts", `[{{'$1'},[],[{abs,'$1'}]}]`, `{-0.0}`, `-0.0`},
		{"abs of a negative float", `[{{'$1'},[],[{abs,'$1'}]}]`, `{-1.5}`, `1.5`},
		{"map_size", `[{{'$1'},[{'==',{map_size,'$1'},2}],[ok]}]`, `{#{a => 1, b => 2}}`, `ok`},
		{"is_boolean, tuple_size, is_bitstring", `[{{'$1','$2','$3'},[{is_boolean,'$1'},{'==',{tuple_size,'$2'},0},{is_bitstring,'$3'}],[ok]}]`, `{true,{},<<1:3>>}`, `ok`},
		{"is_binary is not is_bitstring", `[{{'$1'},[{is_binary,'$1'}],[ok]}]`, `{<<1:3>>}`, `nomatch`},
		{"a map head matches more keys", `[{{#{a => '$1'}},[],['$1']}]`, `{#{a => 1, b => 2}}`, `1`},
		{"a list head with a tail", `[{{['$1'|'$2']},[],['$2']}]`, `{[a,b|c]}`, `[b|c]`},
		{"a proper list head", `[{{['$1',b]},[],['$1']}]`, `{[a,b]}`, `a`},
		{"a proper list head is exact", `[{{['$1',b]},[],['$1']}]`, `{[a,b,c]}`, `nomatch`},
		{"a constant list in a head", `[{{'$1',[a,[]]},[],['$1']}]`, `{x,[a,[]]}`, `x`},
		{"the empty list in a head", `[{{[]},[],[ok]}]`, `{[]}`, `ok`},
		{"== with a list constant", `[{{'$1'},[{'==','$1',{const,[a,[]]}}],[ok]}]`, `{[a,[]]}`, `ok`},
		{"== with []", `[{{'$1'},[{'==','$1',[]}],[ok]}]`, `{[]}`, `ok`},
		{"a map key that is a list", `[{{#{[a] => '$1'}},[],['$1']}]`, `{#{[a] => 1}}`, `1`},
		{"'$$' in variable order", `[{{'$2','$1'},[],['$$']}]`, `{a,b}`, `[b,a]`},
		{"'$_' is the object", `[{{'$1'},[],['$_']}]`, `{a}`, `{a}`},
		{"a tuple is built with {{...}}", `[{{'$1','$2'},[],[{{'$2','$1',x}}]}]`, `{a,b}`, `{b,a,x}`},
		{"const keeps '$1' an atom", `[{{'$1'},[],[{const,'$1'}]}]`, `{a}`, `'$1'`},
		{"the last body expression is the result", `[{{'$1'},[],[first,'$1']}]`, `{a}`, `a`},
		{"a raising call in a body is 'EXIT' where it stands", `[{{'$1'},[],[{{'$1',{hd,'$1'}}}]}]`, `{[]}`, `{[],'EXIT'}`},
		{"the first matching clause wins", `[{{'$1'},[{'>','$1',5}],[big]},{{'$1'},[],[any]}]`, `{7}`, `big`},
		{"a guard that is not true fails", `[{{'$1'},['$1'],[ok]}]`, `{yes}`, `nomatch`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := matchspec.Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got := "nomatch"
			if r, ok := spec.Match(mustTerm(t, tc.obj)); ok {
				got = r.Term.String()
			}
			if got != tc.want {
				t.Errorf("%s on %s = %s, want %s", tc.spec, tc.obj, got, tc.want)
			}
		})
	}
}

// TestCompileErrors: every bad spec is a *SpecError with the sentinel
// and a position.
func TestCompileErrors(t *testing.T) {
	tests := []struct {
		spec string
		err  error
		msg  string // the whole message
	}{
		{`{a,[],[b]}`, matchspec.ErrSpec, `matchspec: not a match specification: want a proper list of {Head, Guards, Body}, got {a,[],[b]}`},
		{`[{a,[],[b]},{a,[]}]`, matchspec.ErrSpec, `matchspec: clause 2: not a match specification: want {Head, Guards, Body}, got {a,[]}`},
		{`[{{'$1'},[{'>','$2',1}],['$_']}]`, matchspec.ErrUnbound, `matchspec: clause 1, guard 1: argument 1: variable not bound by the head: '$2'`},
		{`[{{'$1'},[],[{{a,{hd,'$3'}}}]}]`, matchspec.ErrUnbound, `matchspec: clause 1, body 1: element 2, argument 1: variable not bound by the head: '$3'`},
		{`[{'_',[{foo,1}],[x]}]`, matchspec.ErrFunction, `matchspec: clause 1, guard 1: unknown guard function: foo/1`},
		{`[{'_',[{element,1}],[x]}]`, matchspec.ErrFunction, `matchspec: clause 1, guard 1: unknown guard function: element/1`},
		{`[{'_',[],[]}]`, matchspec.ErrSpec, `matchspec: clause 1, body: not a match specification: want a non-empty proper list, got []`},
		{`[{'_',x,[a]}]`, matchspec.ErrSpec, `matchspec: clause 1, guards: not a match specification: want a proper list, got x`},
		{`[{'_',[{'==','_',1}],[a]}]`, matchspec.ErrSpec, `matchspec: clause 1, guard 1: argument 1: not a match specification: '_' belongs in heads; guards and bodies use '$N'`},
		{`[{{#{'$1' => a}},[],[a]}]`, matchspec.ErrSpec, `matchspec: clause 1, head: not a match specification: map key '$1' is not a constant`},
		{`[{{'$+1'},[],[a]}]`, matchspec.ErrSpec, `matchspec: clause 1, head: not a match specification: '$+1' is neither a variable nor a plain atom here`},
		{`[{'_',[{1,2}],[a]}]`, matchspec.ErrSpec, `matchspec: clause 1, guard 1: not a match specification: {1,2}: a call starts with a function name; {{...}} builds a tuple`},
		{`[{'_',[],[{}]}]`, matchspec.ErrSpec, `matchspec: clause 1, body 1: not a match specification: {} is no expression; {{}} builds the empty tuple`},
	}
	for _, tc := range tests {
		_, err := matchspec.Parse(tc.spec)
		var se *matchspec.SpecError
		if !errors.As(err, &se) || !errors.Is(err, tc.err) {
			t.Errorf("Parse(%s) = %v, want a *SpecError wrapping %v", tc.spec, err, tc.err)
			continue
		}
		if err.Error() != tc.msg {
			t.Errorf("Parse(%s):\n got %s\nwant %s", tc.spec, err, tc.msg)
		}
	}
	_, err := matchspec.Parse(`[{a,[],[b]`)
	var syn *term.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(err.Error(), "column") {
		t.Errorf("a syntax error = %v, want a *term.SyntaxError with its column", err)
	}
}

// TestIDIgnoresSpelling: the identity is the term's, not the text's.
func TestIDIgnoresSpelling(t *testing.T) {
	a := matchspec.MustParse(`[{{order,'$1','_','_'},[{'>=','$1',500}],['$_']}]`)
	b := matchspec.MustParse("[ { {order, '$1', '_', '_'}, [{'>=', '$1', 500}], ['$_'] } ].")
	c := matchspec.MustParse(`[{{order,'$1','_','_'},[{'>=','$1',501}],['$_']}]`)
	if a.ID() != b.ID() || a.ID() == c.ID() || len(a.ID()) != 16 {
		t.Errorf("IDs %s %s %s: want the first two equal, the third different, 16 digits", a.ID(), b.ID(), c.ID())
	}
}
