package main

import (
	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// --values for db put, get, scan and load: raw bytes, or terms stored in
// the External Term Format, as Erlang stores such as mnesia_rocksdb keep
// their values (term_to_binary).

const valuesAbout = `

With --values etf, values are terms: a VALUE (or a load file's value) is
written in Erlang term syntax and stored as term_to_binary writes it on
OTP 25, and a stored value is read as binary_to_term reads it and printed
as a term; a stored value that is not in that format is reported on
stderr, and the exit status is then 1.`

func valuesFlag(fs *flagSet) *choiceValue {
	return newChoice(fs, "values", "raw", "`KIND` of values: raw (bytes as given) or etf (terms, stored as term_to_binary writes them)", "raw", "etf")
}

// putValue returns the bytes to store for put's VALUE argument: args[1]
// as it is, or the term ts[1] in the External Term Format.
func putValue(values string, args []string, ts []term.Term) ([]byte, error) {
	if values != "etf" {
		return []byte(args[1]), nil
	}
	return etf.Encode(ts[1])
}

// showValue appends a stored value to dst as it is printed: raw bytes, or
// the text of the term it holds in the External Term Format.
func showValue(values string, dst, v []byte) ([]byte, error) {
	if values != "etf" {
		return append(dst, v...), nil
	}
	t, err := etf.Decode(v)
	if err != nil {
		return dst, err
	}
	return appendTerm(dst, t), nil
}
