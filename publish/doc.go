// Package publish turns a rendered release into an OCI artifact that Flux,
// Argo CD and Piceli itself can consume, and reads such an artifact back.
//
// The artifact has the layout `flux push artifact` writes: an OCI image
// manifest whose config has the media type ConfigMediaType and whose one
// layer (ContentMediaType) is a gzipped tar of the release's manifests, one
// YAML file per object at the root, in apply order. Piceli's own release
// metadata (origins, dependencies, waves, wait policy, checks, secret
// declarations by source, images) is the file MetadataFile inside that
// same tar: Argo CD reads only single-layer artifacts, and neither Argo CD
// (YAML and JSON files, not recursing by default) nor Flux (YAML files)
// reads a file without such an extension. The same content always gives
// the same bytes, so the same digest. Secret values never enter an
// artifact: Secrets are declarations, and a Secret carrying values is
// refused, as is a workload image not pinned by digest.
package publish
