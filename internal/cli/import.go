package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/importer"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Generate a typed Go module from manifests or a live namespace",
		Long: `Generate a Piceli Go module from existing objects: builder calls where the
app builders say an object exactly, k8s.io/api literals where they do not,
YAML files for kinds without Go types. Secrets become declarations whose
values the first plan imports from the cluster; no value is ever written.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newImportYAMLCmd(), newImportLiveCmd())
	return cmd
}

// moduleImportFlags are the flags both piceli import commands take.
type moduleImportFlags struct {
	opts   importer.Options
	output string
}

func (f *moduleImportFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.Out, "out", "", usageOutDir+"the new module into (required)")
	fl.StringVar(&f.opts.Name, "app", "", usageApp+" (default: the app of objects Piceli made, else the namespace or the directory's name)")
	fl.StringVar(&f.opts.Module, "module", "", "Go module path (default: example.com/APP)")
	fl.BoolVar(&f.opts.Force, "force", false, "write into an existing directory, replacing the Go files, go.mod, go.sum, release.toml, .gitignore and manifests/ there")
	fl.StringVar(&f.opts.PiceliSource, "piceli-source", "", "local Piceli checkout to use (default: the one this binary was built from)")
	fl.StringVarP(&f.output, "output", "o", "text", usageOutput)
}

// options completes the options for a run of cmd.
func (f *moduleImportFlags) options(cmd *cobra.Command) importer.Options {
	opts := f.opts
	if opts.PiceliSource == "" {
		opts.PiceliSource = sourceDir()
	}
	opts.Log = cmd.ErrOrStderr()
	return opts
}

const importSteps = `
  2. drop what the server owns (status, uid, resourceVersion, managedFields,
     kubectl's last-applied-configuration, ...) and every Secret value
  3. write builder calls where the app builders say an object exactly,
     k8s.io/api literals where they do not, YAML files for kinds without Go
     types; images move to ctx.Image and [images]; Secrets become
     declarations imported from the cluster Secret of the same name
  4. render the module (go mod tidy, then as "piceli render" does) and
     compare it with the imported objects; an object its form does not
     reproduce gets a plainer form, and the module is rendered again
  5. write the module to --out, which must not exist or be empty unless
     --force, and report how many objects each form took, by kind, and why
     each object that is not a builder call fell back

Bad input is refused (exit code 2) before anything is written.`

func newImportYAMLCmd() *cobra.Command {
	var f moduleImportFlags
	cmd := &cobra.Command{
		Use:   "yaml FILE_OR_DIR... --out DIR [--app APP] [--module PATH] [--force] [-o json]",
		Short: "Generate a typed Go module from manifest files",
		Long: `Generate a Piceli Go module from YAML or JSON manifests.

Steps:
  1. read every file named, and every .yaml, .yml and .json file under the
     directories named; the namespace most objects name becomes the target` + importSteps + `

Then: piceli render --spec DIR/release.toml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			res, err := importer.FromFiles(cmd.Context(), args, f.options(cmd))
			if err != nil {
				return err
			}
			return printImport(cmd, f.output, res, "piceli render --spec "+specPath(f.opts.Out))
		},
	}
	f.register(cmd)
	return cmd
}

func newImportLiveCmd() *cobra.Command {
	var f moduleImportFlags
	var t importer.Target
	cmd := &cobra.Command{
		Use:   "live --kubeconfig F --context C --namespace N [--select KIND/NAME,...] [--all-kinds] --out DIR [-o json]",
		Short: "Generate a typed Go module from a live namespace",
		Long: `Generate a Piceli Go module from the objects of a live namespace.

Steps:
  1. connect to exactly the kubeconfig file and context named (never
     $KUBECONFIG, ~/.kube/config or a current-context) and read the
     namespace with one LIST per kind: the kinds apps are made of, or every
     kind with --all-kinds, or the objects --select names; leave out what
     the cluster made itself (a Deployment's ReplicaSets and pods,
     endpoints, events, kube-root-ca.crt, the default ServiceAccount and
     its token) and, where managedFields tell them apart, the fields the
     server defaulted` + importSteps + `

Then: piceli release plan --spec DIR/release.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			if t.Kubeconfig == "" || t.Context == "" || t.Namespace == "" {
				return refusedf("import live needs --kubeconfig, --context and --namespace: piceli never uses $KUBECONFIG, ~/.kube/config or a current-context")
			}
			res, err := importer.FromCluster(cmd.Context(), t, f.options(cmd))
			if err != nil {
				return err
			}
			return printImport(cmd, f.output, res, "piceli release plan --spec "+specPath(f.opts.Out))
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&t.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	fl.StringVar(&t.Context, "context", "", usageContext)
	fl.StringVar(&t.Namespace, "namespace", "", usageNamespace+"objects to import (required)")
	fl.StringSliceVar(&t.Select, "select", nil, "import only these objects, as KIND/NAME (kind, resource or short name)")
	fl.BoolVar(&t.AllKinds, "all-kinds", false, "read every namespaced kind that can be listed and created, not only the kinds apps are made of")
	fl.BoolVar(&t.AllowExec, "allow-exec", false, usageAllowExec)
	return cmd
}

// printImport says what was written, what fell back from a builder call
// and why, and what to run next; as JSON, the report document.
func printImport(cmd *cobra.Command, output string, res *importer.Result, next string) error {
	if output == "json" {
		return writeJSON(cmd, res.Report())
	}
	cmd.Printf("imported %d objects: %d builder calls, %d k8s.io/api literals, %d YAML files\n",
		res.Objects, res.Builders, res.Literals, res.YAMLFiles)
	for _, k := range res.Kinds {
		cmd.Printf("  %-32s %d builder, %d literal, %d file\n", k.Kind, k.Builders, k.Literals, k.YAMLFiles)
	}
	for _, f := range res.Fallbacks {
		cmd.Printf("%s is a %s: %s\n", f.Object, f.Form, f.Reason)
	}
	cmd.Printf("wrote %s: %s\n", res.Dir, strings.Join(res.Files, ", "))
	cmd.Printf("next: %s\n", next)
	return nil
}

func specPath(out string) string { return filepath.Join(out, "release.toml") }
