// Command sext encodes, decodes and inspects sext keys, and runs an
// ordered term store over them. Run "sext help" for the subcommands.
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
)

// command is one subcommand; each lives in a file of its own.
type command struct {
	summary string // one line for "sext help"
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	subs    bool // it has subcommands ("db scan"), each with its own help
}

// commands are the subcommands by name.
var commands = map[string]command{
	"encode":  {"encode terms as sext keys", runEncode, false},
	"decode":  {"decode sext keys to terms", runDecode, false},
	"prefix":  {"print the key prefix or key range of patterns", runPrefix, false},
	"match":   {"match a term against a pattern", runMatch, false},
	"compare": {"compare two terms in sext order", runCompare, false},
	"sort":    {"sort terms in sext order", runSort, false},
	"db":      {"an ordered term store: put, get, del, scan, load, stats, check, select, explain, index, watch", runDB, true},
	"etf":     {"encode and decode Erlang's External Term Format (term_to_binary)", runETF, true},
	"demo":    {"load an order book into a store and run pattern scans, selects and an index", runDemo, false},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "sext: no help for unknown command %q\n", args[1])
				usage(stderr)
				return 2
			}
			// "sext help db scan" is "sext db scan -h": the help a
			// subcommand's usage error sends the user to.
			words := args[2:]
			if len(words) > 0 && !c.subs {
				fmt.Fprintf(stderr, "sext: %s has no subcommands\n", args[1])
				return 2
			}
			return c.run(append(slices.Clone(words), "-h"), stdin, stdout, stderr)
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "sext: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sext COMMAND [flags] [args]\n\ncommands:")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun \"sext help COMMAND\" for a command's flags.")
}
