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
}

// commands are the subcommands by name.
var commands = map[string]command{
	"encode":  {"encode terms as sext keys", runEncode},
	"decode":  {"decode sext keys to terms", runDecode},
	"prefix":  {"print the key prefix or key range of patterns", runPrefix},
	"match":   {"match a term against a pattern", runMatch},
	"compare": {"compare two terms in sext order", runCompare},
	"sort":    {"sort terms in sext order", runSort},
	"db":      {"an ordered term store: put, get, del, scan, load, stats, check, select, explain, index, watch", runDB},
	"etf":     {"encode and decode Erlang's External Term Format (term_to_binary)", runETF},
	"demo":    {"load an order book into a store and run pattern scans, selects and an index", runDemo},
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
			return c.run([]string{"-h"}, stdin, stdout, stderr)
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
