package sandboxtest

import "testing"

func TestNamespacePrefix(t *testing.T) {
	tests := map[string]string{
		"TestDeploy":                 "t-testdeploy-",
		"TestA/sub_case with spaces": "t-testa-sub-case-with-spaces-",
		"TestAVeryLongNameThatGoesOnAndOnAndOnForever/x": "t-testaverylongnamethatgoesonandonandonfor-",
	}
	for in, want := range tests {
		if got := namespacePrefix(in); got != want {
			t.Errorf("namespacePrefix(%q) = %q, want %q", in, got, want)
		}
	}
}
