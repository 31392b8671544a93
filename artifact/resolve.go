package artifact

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/refusal"
)

// Resolve returns the digest reference of the image name built from the
// build spec at specPath, as its layout records it
// (registry/repository@sha256:...), with registry replacing the host when
// it is set. It refuses (refusal.Is) a missing layout, a layout
// built from another lock than the current lock file (pin and build
// again), a layout without the image or whose manifest is missing. It
// reads only the build spec, the lock file and the layout's index.
func Resolve(specPath, name, registry string) (string, error) {
	s, err := LoadSpec(specPath)
	if err != nil {
		return "", err
	}
	if s.Images[name] == nil {
		return "", refusedf("%s has no [image.%s]", specPath, name)
	}
	lock, err := inputfile.Read(s.Lock, inputfile.SpecLimit)
	if err != nil {
		return "", refusedf("image %s: %v; run piceli artifacts pin and build", name, err)
	}
	if _, err := os.Stat(filepath.Join(s.Layout, "index.json")); err != nil {
		return "", refusedf("image %s is not built: no OCI layout at %s; run piceli artifacts build --spec %s", name, s.Layout, specPath)
	}
	d, err := resolveRef(s.Layout, name)
	if err != nil {
		return "", refusal.New(err)
	}
	if got, want := d.Annotations[AnnotationLock], "sha256:"+sha256Hex(lock); got != want {
		return "", refusedf("image %s: the OCI layout %s was built from another lock than %s; run piceli artifacts build --spec %s", name, s.Layout, s.Lock, specPath)
	}
	if _, err := os.Stat(blobPath(s.Layout, d.Digest)); err != nil {
		return "", refusedf("image %s: manifest %s is missing from %s; run piceli artifacts build", name, d.Digest, s.Layout)
	}
	ref := d.Annotations[AnnotationImageName]
	if registry != "" {
		ref = registry + "/" + d.Annotations[AnnotationRepository] + "@" + d.Digest.String()
	}
	if !strings.Contains(ref, "@sha256:") {
		return "", refusedf("image %s in %s has no digest reference; build it with piceli artifacts build", name, s.Layout)
	}
	return ref, nil
}
