package publish

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/wire"
)

// The media types of an artifact, those `flux push artifact` writes.
const (
	// ManifestMediaType is the artifact's manifest: an OCI image manifest.
	ManifestMediaType = "application/vnd.oci.image.manifest.v1+json"
	// ConfigMediaType is the media type of the artifact's config blob.
	ConfigMediaType = "application/vnd.cncf.flux.config.v1+json"
	// ContentMediaType is the media type of its one layer, the gzipped tar
	// of the manifests and MetadataFile.
	ContentMediaType = "application/vnd.cncf.flux.content.v1.tar+gzip"
)

// MetadataFile is the path, inside the artifact's tar, of Piceli's release
// metadata (a Metadata document in JSON). Its name has no .yaml, .yml or
// .json extension and it sits in a dot directory, so manifest readers
// (Flux's generated kustomization, Argo CD's directory source) skip it.
const MetadataFile = ".piceli/release-metadata"

// MetadataSchema is the version of the Metadata document.
const MetadataSchema = "piceli.release-metadata/v1"

// ResultSchema is the version of the Result document.
const ResultSchema = "piceli.publish/v1"

// Content is what an artifact carries: the rendered manifests, in apply
// order, and the release's metadata. Manifests never carry Secret values.
type Content struct {
	Manifests []*unstructured.Unstructured
	Metadata  Metadata
}

// Metadata is Piceli's record of a published release, beside its
// manifests: what a plan needs besides the manifests themselves, and what
// a reader needs to know of the release. It holds no secret value.
type Metadata struct {
	Schema    string `json:"schema"`
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	// Objects describe Content.Manifests, one each, in the same order.
	Objects []ObjectInfo `json:"objects"`
	// Components are the components a Go composition declared.
	Components []wire.ComponentInfo `json:"components,omitempty"`
	// Secrets are the composition's secret declarations: names, keys and
	// the source of each value (never a value).
	Secrets []wire.SecretInfo `json:"secrets,omitempty"`
	// Wait is the release's readiness policy ("ready" or "none").
	Wait string `json:"wait,omitempty"`
	// Checks are the release's checks, by name and kind.
	Checks []CheckInfo `json:"checks,omitempty"`
	// Images are the release's images by key, each pinned by digest.
	Images map[string]string `json:"images,omitempty"`
}

// ObjectInfo describes one manifest of an artifact.
type ObjectInfo struct {
	// File is the manifest's file in the artifact's tar.
	File string `json:"file"`
	// Ref is the object as Kind/namespace/name.
	Ref string `json:"ref"`
	// Wave is the apply stage the object belongs to.
	Wave string `json:"wave"`
	// Origin says where the composition declared the object.
	Origin string `json:"origin"`
	// DependsOn names the components it is applied after.
	DependsOn []string `json:"dependsOn,omitempty"`
}

// CheckInfo names one check of the release and its kind (http, tcp,
// command or job).
type CheckInfo struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Result is the typed document a publish prints: the artifact's manifest
// digest, where it went (an OCI layout directory or a registry reference
// pinned by that digest), the files of its tar and its size.
type Result struct {
	Schema    string   `json:"schema"`
	Digest    string   `json:"digest"`
	Reference string   `json:"reference"`
	Files     []string `json:"files"`
	// Bytes is the size of the artifact's blobs: manifest, config, layer.
	Bytes int64 `json:"bytes"`
}
