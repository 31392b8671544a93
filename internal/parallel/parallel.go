// Package parallel spreads independent CPU-bound calls, such as decoding
// each of a thousand documents, over the machine's cores.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i below n and returns when every call has. It
// runs them on GOMAXPROCS goroutines when n is at least from, and in order
// on the caller's goroutine otherwise (a few calls are not worth a
// goroutine each). f must be safe to call concurrently for distinct i.
func Each(n, from int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if n < from || workers < 2 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
