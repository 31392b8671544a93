package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/artifact"
)

func newArtifactsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "artifacts",
		Short: "Pin, build, inspect and import deterministic OCI images",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newArtifactsPinCmd(), newArtifactsBuildCmd(), newArtifactsInspectCmd(), newArtifactsImportCmd())
	return cmd
}

func newArtifactsPinCmd() *cobra.Command {
	var specPath, platform, output string
	cmd := &cobra.Command{
		Use:   "pin [--spec build.toml] [--platform linux/ARCH] [-o json]",
		Short: "Record every input of a build in its lock file",
		Long: `Record every input of the build spec in its lock file (build.lock).

Steps:
  1. read and validate build.toml
  2. digest every file and directory entry, the spec itself, each Go
     package's files and go.mod/go.sum (go list runs offline), every module
     by its go.sum hash, base layouts by manifest digest, the Go version and
     the layout format
  3. replace the lock file atomically and list what changed since the last pin

The lock holds no absolute path of the project, so a copy elsewhere pins alike.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			res, err := artifact.Pin(cmd.Context(), specPath, artifact.PinOptions{Platform: platform})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, res)
			}
			for _, c := range res.Changed {
				cmd.Println("changed:", c)
			}
			cmd.Printf("pinned %d inputs in %s\n", len(res.Inputs), res.Lock)
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", artifact.SpecFile, usageSpec)
	cmd.Flags().StringVar(&platform, "platform", "", "build for linux/ARCH (default: the lock's, else this machine's architecture)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func newArtifactsBuildCmd() *cobra.Command {
	var specPath, output string
	cmd := &cobra.Command{
		Use:   "build [--spec build.toml] [-o json]",
		Short: "Build every image of build.toml into one OCI layout",
		Long: `Build the images of the build spec into one OCI image layout directory.

Steps:
  1. read build.toml and its lock; refuse, before writing anything, any input
     that is unpinned, changed or gone, naming it
  2. compile each Go package static and reproducibly (CGO_ENABLED=0,
     -trimpath, no build id), offline (GOPROXY=off)
  3. make each layer a tar with sorted entries, root ownership, fixed modes
     and every time at [build] epoch; gzip at a fixed level
  4. write the layout beside its place and swap it in; print each image's
     digest and size and the bytes shared between images

The same pinned inputs give a byte-identical layout. No Docker is used.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := artifact.Build(cmd.Context(), specPath, artifact.BuildOptions{Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, res.Doc())
			}
			printBuild(cmd, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", artifact.SpecFile, usageSpec)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func printBuild(cmd *cobra.Command, res *artifact.BuildResult) {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tREFERENCE\tSIZE")
	for _, im := range res.Images {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", im.Name, im.Reference, bytesText(im.Size))
	}
	tw.Flush()
	cmd.Printf("%d image(s) in %s: %s stored, %s shared between images, built in %s\n",
		len(res.Images), res.Layout, bytesText(res.StoredBytes), bytesText(res.SharedBytes), res.Duration.Round(1e7))
}

// bytesText prints a size in bytes and, when large, in MiB or KiB.
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

func newArtifactsInspectCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "inspect LAYOUT [-o json]",
		Short: "Verify an OCI layout and list its images and shared layers",
		Long: `Verify every blob of an OCI image layout and list what it holds.

Steps:
  1. read index.json
  2. read each image's manifest, config and layers, checking each blob's size
     and SHA-256 digest
  3. list images, their layers, which layers are shared and any damage

A missing or corrupt blob makes the command exit 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := artifact.Inspect(args[0])
			if rep == nil {
				return err
			}
			if output == "json" {
				if jerr := writeJSON(cmd, rep.Doc()); jerr != nil {
					return jerr
				}
			} else {
				printInspect(cmd, rep)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func printInspect(cmd *cobra.Command, rep *artifact.Report) {
	shared := map[string]int{}
	for _, b := range rep.Blobs {
		shared[b.Digest] = b.Images
	}
	for _, im := range rep.Images {
		cmd.Printf("%s %s (%s, %s)\n", im.Name, im.Reference, im.Platform, bytesText(im.Size))
		for _, l := range im.Layers {
			note := ""
			if shared[l] > 1 {
				note = fmt.Sprintf("  shared by %d images", shared[l])
			}
			cmd.Printf("  layer %s%s\n", l, note)
		}
	}
	for _, u := range rep.Unreferenced {
		cmd.Printf("unreferenced blob %s\n", u)
	}
	for _, p := range rep.Problems {
		cmd.Printf("DAMAGED: %s\n", p)
	}
	cmd.Printf("%d image(s): %s stored, %s shared\n", len(rep.Images), bytesText(rep.StoredBytes), bytesText(rep.SharedBytes))
}
