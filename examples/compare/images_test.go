package compare_test

import (
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/artifact"
)

// The Piceli app runs the images examples/shop builds offline, so that it
// applies on the sandbox's real node once the shop's images are there;
// the chart and the overlay render the same references (the test above).
// A change to the shop's servers changes their digests: this test then
// names the references to write into piceli/release.toml,
// helm/shop/values.yaml and the sandbox overlay.
func TestComparedAppRunsTheImagesTheShopBuilds(t *testing.T) {
	res, err := artifact.Build(t.Context(), "../shop/build.toml", artifact.BuildOptions{})
	if err != nil {
		t.Fatalf("build examples/shop's images: %v", err)
	}
	built := map[string]string{}
	for _, im := range res.Images {
		built[im.Name] = im.Reference
	}
	want := map[string]string{"web": built["web"], "api": built["api"], "postgres": built["db"]}
	var spec struct {
		Images map[string]string `toml:"images"`
	}
	if _, err := toml.DecodeFile("piceli/release.toml", &spec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, spec.Images); diff != "" {
		t.Errorf("piceli/release.toml [images] are not examples/shop's build (-built +release.toml); write the built ones there, in helm/shop/values.yaml and in each kustomize/overlays/*:\n%s", diff)
	}
}
