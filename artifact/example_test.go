package artifact_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/artifact"
)

// An import runs only the tool it is granted; without the grant it runs
// nothing and says which grant is missing.
func ExampleImport_withoutGrant() {
	_, err := artifact.Import(context.Background(), "dist/oci", artifact.ImportOptions{Target: artifact.TargetContainerd})
	var ge *artifact.GrantError
	fmt.Println(errors.As(err, &ge), ge.Tool)
	fmt.Println(err)
	// Output:
	// true ctr
	// import to containerd runs ctr, which is not granted; nothing was run: grant it as ctr=PATH (for example ctr=/usr/bin/ctr)
}

func ExampleParseGrant() {
	g, err := artifact.ParseGrant("ssh=/usr/bin/ssh")
	fmt.Println(g.Tool, g.Path, err)
	_, err = artifact.ParseGrant("curl=/usr/bin/curl")
	fmt.Println(err)
	// Output:
	// ssh /usr/bin/ssh <nil>
	// grant "curl=/usr/bin/curl": unknown tool "curl" (imports run ctr, docker or ssh)
}
