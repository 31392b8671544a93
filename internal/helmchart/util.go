package helmchart

import (
	"fmt"
	"strconv"
)

func markerOf(nonce string, i int) string { return fmt.Sprintf("%s-%d", nonce, i) }

func itoa(i int) string { return strconv.Itoa(i) }

func asString(v any) string {
	s, _ := v.(string)
	return s
}
