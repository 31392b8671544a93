package cli

import (
	"flag"
	"strconv"
)

// minParallel is how many of this package's parallel tests run at once
// when go test's -parallel does not say: its default, GOMAXPROCS, is 2 on
// the project's 2-core machines, while most of these tests wait on the
// sandbox's API server, on a subprocess or on the real node's lock rather
// than on the CPU.
const minParallel = 4

// raiseParallel sets -test.parallel to minParallel unless the command
// line set it. TestMain calls it before m.Run, which reads the flag.
func raiseParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	p := flag.Lookup("test.parallel")
	if given || p == nil {
		return
	}
	if n, err := strconv.Atoi(p.Value.String()); err == nil && n < minParallel {
		p.Value.Set(strconv.Itoa(minParallel))
	}
}
