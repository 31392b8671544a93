package release

import (
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/wire"
	"github.com/pynenc/piceli/refusal"
)

func TestADeclaredSecretMayNotTakeTheChartSeedsName(t *testing.T) {
	ok := []wire.SecretInfo{{Name: "db"}, {Name: "piceli.chart-seed-2"}}
	if err := checkReserved(ok); err != nil {
		t.Errorf("checkReserved(%v) = %v, want nil", ok, err)
	}
	err := checkReserved(append(ok, wire.SecretInfo{Name: ChartSeedSecret}))
	if err == nil || !refusal.Is(err) || !strings.Contains(err.Error(), `secret "piceli.chart-seed": the name is reserved`) {
		t.Errorf("checkReserved(the seed's name) = %v, want a refusal naming it", err)
	}
}
