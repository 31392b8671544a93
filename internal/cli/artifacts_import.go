package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/artifact"
)

// importFlags are the flags of artifacts import, gathered into options.
type importFlags struct {
	opts         artifact.ImportOptions
	grants       []string
	passwordFile string
	output       string
}

func newArtifactsImportCmd() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import LAYOUT --deliver containerd|docker|ssh-containerd|registry --grant TOOL=PATH ...",
		Short: "Stream a layout's images into a runtime or push them to a registry",
		Long: `Deliver the images of an OCI layout, only through tools you grant.

Steps:
  1. check the target's flags and that --grant names exactly the tool it runs
     (containerd: ctr; docker: docker; ssh-containerd: ssh; registry: none);
     resolve each grant to an absolute path and record its version
  2. verify every blob of the chosen images
  3. containerd, docker, ssh-containerd: stream the images as one OCI archive
     straight from the layout into 'ctr images import -', 'docker load' or
     'ssh HOST ctr images import -'; no archive is written to disk
     registry: push to --registry HOST:PORT, or through a port-forward
     (--via-forward service/NAME:PORT with --kubeconfig, --context,
     --namespace), sending only the blobs the registry lacks
  4. write a receipt (images, digests, target, tools and versions, bytes
     sent, times, outcome; no secrets) beside the layout, or in --receipts

Ctrl-C stops the tool's whole process group. Without the grant nothing runs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.finish(cmd); err != nil {
				return refused(err)
			}
			rec, err := artifact.Import(cmd.Context(), args[0], f.opts)
			if rec != nil && f.output == "json" {
				if jerr := writeJSON(cmd, artifact.ImportDocOf(rec)); jerr != nil {
					return jerr
				}
			} else if rec != nil {
				cmd.Printf("%s: %d image(s) to %s, %s sent; receipt %s\n", rec.Outcome, len(rec.Images), rec.Target.Kind, bytesText(rec.BytesSent), rec.Path)
			}
			return err
		},
	}
	f.register(cmd)
	return cmd
}

func (f *importFlags) register(cmd *cobra.Command) {
	fl, o := cmd.Flags(), &f.opts
	fl.StringVar(&o.Target, "deliver", "", usageDeliver+": containerd, docker, ssh-containerd or registry")
	fl.StringSliceVar(&o.Images, "only", nil, usageOnly+"images of the layout are delivered, by name (repeat or comma-separate; default all)")
	fl.StringArrayVar(&f.grants, "grant", nil, usageGrant+" to deliver images (ctr, docker or ssh)")
	fl.StringVar(&o.Containerd.Address, "containerd-address", "", usageContainerd+artifact.DefaultContainerdAddress+"; --deliver containerd)")
	fl.StringVar(&o.Containerd.Namespace, "containerd-namespace", "", "containerd namespace (default "+artifact.DefaultContainerdNamespace+", the kubelet's)")
	fl.StringVar(&o.SSH.Host, "ssh-host", "", "ssh-containerd: USER@HOST of the node")
	fl.IntVar(&o.SSH.Port, "ssh-port", 0, "ssh-containerd: ssh port")
	fl.StringVar(&o.SSH.Identity, "ssh-identity", "", "ssh-containerd: private key file for ssh -i")
	fl.StringVar(&o.SSH.KnownHosts, "ssh-known-hosts", "", "ssh-containerd: known_hosts file (host keys are always checked)")
	fl.StringArrayVar(&o.SSH.Options, "ssh-option", nil, "ssh-containerd: another ssh -o option (repeat)")
	fl.BoolVar(&o.SSH.Sudo, "sudo", false, "ssh-containerd: run the remote ctr with sudo -n")
	fl.StringVar(&o.SSH.Ctr, "remote-ctr", "", "ssh-containerd: the ctr program on the node (default ctr)")
	fl.StringVar(&o.Registry.Address, "registry", "", usageRegistry+" to push to (--deliver registry)")
	fl.BoolVar(&o.Registry.Insecure, "insecure", false, "registry: plain HTTP to a registry that is not on loopback")
	fl.StringVar(&o.Registry.Username, "registry-user", "", "registry: user name")
	fl.StringVar(&f.passwordFile, "registry-password-file", "", "registry: file holding the password (never recorded)")
	fl.StringVar(&o.Registry.ViaForward, "via-forward", "", "registry: service/NAME:PORT, deployment/NAME:PORT or pod/NAME:PORT to port-forward to (a ready pod)")
	fl.StringVar(&o.Registry.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	fl.StringVar(&o.Registry.Context, "context", "", usageContext)
	fl.StringVar(&o.Registry.Namespace, "namespace", "", usageNamespace+"object --via-forward reaches")
	fl.BoolVar(&o.Registry.AllowExec, "allow-exec", false, usageAllowExec)
	fl.StringVar(&o.ReceiptDir, "receipts", "", "directory for the receipt (default: receipts beside the layout)")
	fl.StringVarP(&f.output, "output", "o", "text", usageOutput)
}

// finish parses the grants and reads the password file.
func (f *importFlags) finish(cmd *cobra.Command) error {
	f.opts.Log = cmd.ErrOrStderr()
	for _, g := range f.grants {
		grant, err := artifact.ParseGrant(g)
		if err != nil {
			return err
		}
		f.opts.Grants = append(f.opts.Grants, grant)
	}
	if f.passwordFile != "" {
		pw, err := artifact.ReadPasswordFile(f.passwordFile)
		if err != nil {
			return err
		}
		f.opts.Registry.Password = pw
	}
	return nil
}
