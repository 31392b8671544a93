package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is called exactly once, below the threshold and above it.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		calls := make([]atomic.Int32, n)
		Each(n, 8, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("Each(%d): index %d called %d times; want once", n, i, c)
			}
		}
	}
}
