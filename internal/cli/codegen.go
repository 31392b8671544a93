package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/codegen"
)

func newCodegenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "codegen",
		Short: "Generate Go types for what a composition declares",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCodegenCRDCmd())
	return cmd
}

func newCodegenCRDCmd() *cobra.Command {
	var opts codegen.Options
	var cluster codegen.Cluster
	var output string
	cmd := &cobra.Command{
		Use:   "crd FILE_OR_DIR... [--out DIR] [--package NAME] | --kubeconfig F --context C --crd NAME,...",
		Short: "Generate Go types from CustomResourceDefinitions",
		Long: `Generate a Go package per API group and served version of
CustomResourceDefinitions, with one type per kind, from each version's
OpenAPI v3 schema. A composition adds the objects with a.Objects, as it
does k8s.io/api objects. See docs/crds.md.

Steps:
  1. read the CRDs: from the files named and the .yaml, .yml and .json
     files under the directories named (objects of other kinds are
     skipped), or, with --crd, from the cluster of exactly the kubeconfig
     file and context named, by one GET per CRD (nothing is written there)
  2. generate, for each served version, DIR/GROUP/VERSION/: a struct per
     kind embedding metav1.TypeMeta and ObjectMeta, its nested types,
     string enums with constants, a constructor setting apiVersion and
     kind, and DeepCopy methods; required fields are values, optional ones
     pointers or omitted when empty; schema defaults are never copied
  3. write the files under --out, replacing only files this command wrote
     (they start with its header) and removing its files no kind needs
     any more

Bad input is refused (exit code 2) before anything is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			opts.Files = args
			if cmd.Flags().Changed("crd") || cmd.Flags().Changed("kubeconfig") || cmd.Flags().Changed("context") {
				opts.Cluster = &cluster
			}
			res, err := codegen.CRD(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, res)
			}
			printCodegen(cmd, res)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Out, "out", codegen.DefaultOut, usageOutDir+"the packages under, as GROUP/VERSION/")
	fl.StringVar(&opts.Package, "package", "", "Go package name of every generated package (default: the version, e.g. v1)")
	fl.StringVar(&cluster.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	fl.StringVar(&cluster.Context, "context", "", usageContext)
	fl.StringSliceVar(&cluster.CRDs, "crd", nil, "CRDs to read from the cluster, by name (certificates.cert-manager.io)")
	fl.BoolVar(&cluster.AllowExec, "allow-exec", false, usageAllowExec)
	fl.StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// printCodegen says what was written and how to use it.
func printCodegen(cmd *cobra.Command, res *codegen.Result) {
	for _, p := range res.Packages {
		var kinds []string
		for _, k := range p.Kinds {
			kinds = append(kinds, k.Type)
		}
		cmd.Printf("%s/%s: package %s (%s/%s): %s\n", res.Out, p.Dir, p.Name, p.Group, p.Version, strings.Join(kinds, ", "))
	}
	cmd.Printf("wrote %d files", len(res.Files))
	if len(res.Removed) > 0 {
		cmd.Printf(", removed %d stale ones", len(res.Removed))
	}
	if res.Skipped > 0 {
		cmd.Printf("; skipped %d objects that are not CustomResourceDefinitions", res.Skipped)
	}
	cmd.Println()
	cmd.Println("next: import a package in your composition and add objects with a.Objects(...); see docs/crds.md")
}
