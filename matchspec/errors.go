package matchspec

import (
	"errors"
	"strconv"
)

// Sentinel errors. Every error Compile returns is a *SpecError wrapping
// one of them, so errors.Is works through the position it adds.
var (
	// ErrSpec: the term is not a match specification of the shape
	// [{Head, Guards, Body}, ...].
	ErrSpec = errors.New("not a match specification")
	// ErrUnbound: a guard or body uses a '$N' that the head does not bind.
	ErrUnbound = errors.New("variable not bound by the head")
	// ErrFunction: a guard or body calls a function that match
	// specifications do not have, or with the wrong number of arguments.
	ErrFunction = errors.New("unknown guard function")
	// ErrLimit: the specification exceeds a size limit (clauses, nesting).
	ErrLimit = errors.New("match specification too large")
)

// SpecError reports where in a specification a problem is and what it is.
// Clause counts from 1; 0 means the specification as a whole. Where names
// the part of the clause ("head", "guard 2", "body 1") and, after a colon,
// the path into it ("guard 2: argument 1").
type SpecError struct {
	Clause int
	Where  string
	Err    error  // one of the sentinels
	Detail string // what was found
}

// Error returns "matchspec: clause N, WHERE: SENTINEL: DETAIL".
func (e *SpecError) Error() string {
	s := "matchspec: "
	if e.Clause > 0 {
		s += "clause " + strconv.Itoa(e.Clause)
		if e.Where != "" {
			s += ", "
		}
	}
	s += e.Where
	if e.Clause > 0 || e.Where != "" {
		s += ": "
	}
	s += e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel.
func (e *SpecError) Unwrap() error { return e.Err }
