package matchspec

// SetPlanAllowance makes the plans of specs compiled from now on work
// within the allowance given, whatever their size, so that tests reach
// the paths that widen a plan; the function returned restores it.
func SetPlanAllowance(work, bytes, entries int) (restore func()) {
	old := newPlanner
	newPlanner = func(int) *planner { return &planner{work: work, bytes: bytes, entries: entries} }
	return func() { newPlanner = old }
}
