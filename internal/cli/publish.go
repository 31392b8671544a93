package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newPublishCmd() *cobra.Command {
	var sf specFlag
	var to, out, output string
	cmd := &cobra.Command{
		Use:   "publish --spec release.toml (--to oci://HOST/REPO:TAG | --out DIR) [-o json]",
		Short: "Publish the rendered release as an OCI artifact Flux, Argo CD and Piceli consume",
		Long: `Publish the rendered release as an OCI artifact, in the layout
"flux push artifact" writes, with Piceli's release metadata inside.

Steps:
  1. read the spec and render the composition (as "piceli render" does)
  2. refuse a Secret that carries values and an image not pinned by digest
  3. pack the manifests, one YAML file per object, and the release metadata
     (.piceli/release-metadata) into one deterministic tar+gzip layer
  4. write an OCI layout into --out, or push it to the registry of --to by
     digest (only the blobs it lacks) and tag it there

The same inputs give the same digest. Plan from the artifact with
"piceli release plan --spec release.toml --artifact DIR|oci://HOST/REPO@DIGEST".
Publish never contacts a cluster.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := sf.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			res, err := r.Publish(cmd.Context(), release.PublishOptions{Out: out, To: to, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, res)
			}
			cmd.Printf("published %s (%d files, %d bytes)\n%s\n", res.Digest, len(res.Files), res.Bytes, res.Reference)
			cmd.Printf("plan from it with: piceli release plan%s --artifact %s\n", specArg(sf), artifactArg(out, res.Reference))
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", usageTo+"the registry reference oci://HOST/REPO:TAG to push the artifact to")
	cmd.Flags().StringVar(&out, "out", "", usageOutDir+"the artifact into, as an OCI layout")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// artifactArg is what --artifact takes for a published release: the
// layout directory, or the pushed reference pinned by digest.
func artifactArg(out, reference string) string {
	a := "oci://" + reference
	if out != "" {
		a = out
	}
	return shellWord(a)
}
