// Package matchspec compiles Erlang match specifications, the queries of
// ets:select, and plans them into the byte ranges of sext-encoded keys
// that a select has to read.
//
// A specification is a list of clauses {Head, Guards, Body}, written in
// Erlang's syntax and compiled once:
//
//	spec, err := matchspec.Parse(`[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`)
//
// The head is a pattern: '_' matches any term, '$N' any term and binds it
// (the same term wherever it recurs), a map pattern any map with those
// keys, a binary prefix <<"ali",_/binary>> (term.BinaryPrefix) any binary
// that starts with those bytes, and the rest matches itself exactly. The
// binary prefix is an extension: Erlang writes it in a function head, but
// ets's match specifications have no term for it (ets:fun2ms refuses
// one); the guards [{is_binary,'$1'},{'=:=',{binary_part,'$1',0,3},<<"ali">>}]
// on a '$1' in its place select the same objects in ets. Guards and bodies
// hold values, so a binary prefix there is refused. Guards are Erlang guard
// expressions over the bound variables, all of which must be true:
// comparisons ('<', '=<', '>', '>=', '==', '/=', '=:=', '=/='), type tests
// (is_integer, is_float, is_number, is_atom, is_binary, is_bitstring,
// is_tuple, is_list, is_map, is_pid, is_port, is_reference, is_boolean),
// 'andalso', 'orelse', 'not', 'and', 'or', 'xor', element/2, size,
// tuple_size, byte_size, bit_size, length, map_size, hd, tl and abs;
// {const, X} is X itself and {{A, B}} builds a tuple. A guard that raises
// (hd([]), element(5, {a})) is false. The body's last expression is the
// result: '$_' is the whole object, '$$' the list of bound values in '$N'
// order, and anything else a template of them; a call that raises in a
// body is the atom 'EXIT' where it stands. These are ets's rules, checked
// against what OTP 25's ets:match_spec_run gave in 1,500 cases; OTP 25's
// ets lacks is_bitstring, is_boolean and tuple_size, which are Erlang
// guard BIFs all the same.
//
// Comparisons are Erlang's: numbers by value (1 == 1.0, 1 < 1.0 is
// false), so a guard sees the number the key holds whatever its type.
// Erlang's term order otherwise is term.CompareErlang's: pids, ports and
// references in erts's order (which is not the encoding's), a reference
// == to one with more zero id words at the high end, and -0.0, which =:=
// tells from 0.0 (as OTP 27 does; == does not). The same
// holds for a variable repeated in a head: {x,'$1','$1'} does not match
// {x,0.0,-0.0} here, while OTP 25's ets matches it (0.0 and -0.0 are one
// term there); the two are different keys in the encoding, so this
// package keeps them apart everywhere.
//
// Plan turns the clauses into ascending, non-overlapping byte ranges:
// each head's prefix (sext.PrefixRange), narrowed where the guards bound
// the head's first variable. With keys {order, Customer, ...}, the spec
// above reads the customers from 500 up to but not including 1000, and
// sext's order of numbers is minded: 500.0 is read, 999.5 too, 1000.0 is
// not. Package store runs the plan (Store.Select).
package matchspec
