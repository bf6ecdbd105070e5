package store

import (
	"context"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// Values as terms: PutTerm and its kin store a value as its External Term
// Format, the bytes of term_to_binary on OTP 25 (package etf), as Erlang
// stores such as mnesia_rocksdb keep their values, so that Erlang and Go
// can share a store both ways.

// PutTerm stores value, as term_to_binary(value), under key.
func (s *Store) PutTerm(ctx context.Context, key, value term.Term) error {
	v, err := etf.Encode(value)
	if err != nil {
		return err
	}
	return s.Put(ctx, key, v)
}

// GetTerm returns the value stored under key, read as binary_to_term
// reads it; an error wraps ErrNotFound, or is an *etf.DecodeError for a
// value that is not in the External Term Format.
func (s *Store) GetTerm(ctx context.Context, key term.Term) (term.Term, error) {
	v, err := s.Get(ctx, key)
	if err != nil {
		return term.Term{}, err
	}
	return etf.Decode(v)
}

// PutTerm records that key will hold value, as term_to_binary(value). A
// value that cannot be encoded returns its error without spoiling the
// batch, since nothing was recorded.
func (b *Batch) PutTerm(key, value term.Term) error {
	v, err := etf.Encode(value)
	if err != nil {
		return err
	}
	return b.Put(key, v)
}

// ValueTerm reads the entry's value as binary_to_term does.
func (e Entry) ValueTerm() (term.Term, error) { return etf.Decode(e.Value) }
