package matchspec

import "github.com/erlsext/sext/term"

// compile compiles clause number cl (from 1): {Head, Guards, Body}.
func (c *clause) compile(t term.Term, cl int) error {
	if t.Kind() != term.KindTuple || t.Len() != 3 {
		return &SpecError{Clause: cl, Err: ErrSpec, Detail: "want {Head, Guards, Body}, got " + brief(t)}
	}
	parts := t.Elems()
	head, guards, body := parts[0], parts[1], parts[2]
	names, nodes, err := collectVars(head, cl)
	if err != nil {
		return err
	}
	c.headT, c.names, c.headN = head, names, nodes
	slotOf := slotNames(names)
	c.head = compilePat(head, slotOf)
	if guards.Kind() != term.KindList || !guards.IsProper() {
		return &SpecError{Clause: cl, Where: "guards", Err: ErrSpec, Detail: "want a proper list, got " + brief(guards)}
	}
	if body.Kind() != term.KindList || !body.IsProper() || body.Len() == 0 {
		return &SpecError{Clause: cl, Where: "body", Err: ErrSpec, Detail: "want a non-empty proper list, got " + brief(body)}
	}
	comp := compiler{clause: cl, slotOf: slotOf}
	for i, g := range guards.Elems() {
		comp.where = "guard " + itoa(i+1)
		e, err := comp.expr(g)
		if err != nil {
			return err
		}
		c.guards = append(c.guards, e)
	}
	for i, b := range body.Elems() {
		comp.where = "body " + itoa(i+1)
		e, err := comp.expr(b)
		if err != nil {
			return err
		}
		c.body = append(c.body, e)
	}
	c.whole = len(c.body) == 1 && c.body[0].op == opWhole
	return nil
}
