package matchspec

// Planning is bounded by an allowance of work measured in the size of the
// specification, so that no shape of guard or head makes it quadratic: a
// chain of 5,000 orelse alternatives took 5.3 s and 7.7 GB before. What
// the allowance cannot pay for is not done, and the plan is wider for it,
// never narrower: a guard left unread allows every value, a variable not
// substituted keeps its spans, spans too many to copy a long prefix onto
// become the one span that holds them all, and clause lists too long to
// write become one range that holds every clause. A plan may read more
// keys than it must; it never misses one.

const (
	// workPerNode is the work the plan may do for each subterm of the
	// specification: a visit to an expression, a span handled, a head
	// walked once more for a substitution.
	workPerNode = 16
	// workBase is the allowance of every specification, so that small
	// ones plan in full whatever their shape: 256 substitutions of a
	// clause of a dozen subterms and a few guards fit in it.
	workBase = 1 << 14
	// boundBytesPerNode and boundBytesBase bound the bytes of range
	// bounds one plan writes: a prefix copied in front of each of a
	// variable's spans.
	boundBytesPerNode = 64
	boundBytesBase    = 1 << 18
	// entriesBase bounds the clause indexes the ranges list in all,
	// beyond 4 for each range a clause contributes: heavily overlapping
	// clauses would otherwise list every clause in every range.
	entriesBase = 1 << 14
)

// planner carries one plan's allowance.
type planner struct {
	work    int // units of work left
	bytes   int // bytes of range bounds left
	entries int // clause indexes the ranges may list, beyond 4 a range
}

// newPlanner returns the allowance of a spec of nodes subterms. It is a
// variable so that tests can shrink it to reach the widening paths.
var newPlanner = func(nodes int) *planner {
	return &planner{
		work:    workBase + workPerNode*nodes,
		bytes:   boundBytesBase + boundBytesPerNode*nodes,
		entries: entriesBase,
	}
}

// spend takes n units of work if they are left, and reports whether it
// did.
func (p *planner) spend(n int) bool {
	if p.work < n {
		return false
	}
	p.work -= n
	return true
}

// spendBytes takes n bytes of range bounds if they are left.
func (p *planner) spendBytes(n int) bool {
	if p.bytes < n {
		return false
	}
	p.bytes -= n
	return true
}
