package observe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/pynenc/piceli/internal/access"
)

// The hard caps of a log tail, whatever is asked: at most MaxTailLines
// lines and MaxTailBytes bytes (line ends included) reach the caller.
const (
	MaxTailLines = 10000
	MaxTailBytes = 1 << 20
	// MaxReadBytes bounds what one tail reads from the API server.
	MaxReadBytes     = 16 << 20
	DefaultTailLines = 100
)

// LogsOptions say which log to tail. Namespace and Target are required.
type LogsOptions struct {
	Namespace string
	// Target is deployment/NAME, statefulset/NAME, service/NAME or
	// pod/NAME; a ready pod of it is read (the oldest).
	Target string
	// Container names the container; empty means the pod's default
	// (its kubectl.kubernetes.io/default-container annotation, else the
	// first).
	Container string
	// Previous reads the previous instance of the container.
	Previous bool
	// Lines is how many lines to return at most; zero means
	// DefaultTailLines, and more than MaxTailLines is MaxTailLines.
	Lines int
	// Bytes caps the bytes returned; zero or more than MaxTailBytes means
	// MaxTailBytes.
	Bytes int
}

// LogTail is the end of one container's log.
type LogTail struct {
	Pod       string   `json:"pod"`
	Container string   `json:"container"`
	Lines     []string `json:"lines"`
	// Truncated says the log had more than was returned: older lines
	// were dropped to stay within the caps.
	Truncated bool `json:"truncated"`
}

// Logs returns the last lines of a container of a ready pod of
// opts.Target, through the API server (the kubelet's log endpoint), never
// more than the caps. Bad options are a refusal (refusal.Is); nothing is written.
func Logs(ctx context.Context, cl *Cluster, opts LogsOptions) (*LogTail, error) {
	lines, limit, err := opts.caps()
	if err != nil {
		return nil, err
	}
	pod, err := cl.readyPod(ctx, opts.Namespace, opts.Target)
	if err != nil {
		return nil, err
	}
	container := opts.Container
	if container == "" {
		container = defaultContainer(pod)
	}
	// The server cuts at LimitBytes from the start of the tail, so the
	// byte cap is kept here, on the stream's end; the server's limit only
	// bounds what is read.
	tail, limit64 := int64(lines), int64(MaxReadBytes)
	req := cl.c.Clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{
		Container: container, Previous: opts.Previous, TailLines: &tail, LimitBytes: &limit64})
	stream, err := req.Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("read logs of Pod/%s/%s container %s: %w", pod.Namespace, pod.Name, container, err)
	}
	defer stream.Close()
	got, truncated, err := Tail(stream, lines, limit)
	if err != nil {
		return nil, fmt.Errorf("read logs of Pod/%s/%s container %s: %w", pod.Namespace, pod.Name, container, err)
	}
	return &LogTail{Pod: pod.Name, Container: container, Lines: got, Truncated: truncated}, nil
}

func (o LogsOptions) caps() (int, int, error) {
	if o.Namespace == "" || o.Target == "" {
		return 0, 0, badInput("logs need a namespace and a target")
	}
	if o.Lines < 0 || o.Bytes < 0 {
		return 0, 0, badInput("tail %d lines, %d bytes: want positive numbers", o.Lines, o.Bytes)
	}
	lines := cmpOr(o.Lines, DefaultTailLines)
	return min(lines, MaxTailLines), min(cmpOr(o.Bytes, MaxTailBytes), MaxTailBytes), nil
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Tail reads r and returns its last lines: at most lines of them, at most
// limit bytes with their line ends, and whether anything was dropped. It
// reads at most limit+1 bytes past the last line kept and holds at most
// lines lines at once, so a huge stream costs bounded memory; a line
// longer than limit is cut to it.
func Tail(r io.Reader, lines, limit int) ([]string, bool, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var q []string // q[head:] are the lines kept
	head, size, truncated := 0, 0, false
	for {
		line, err := readLine(br, limit)
		if len(line) > 0 || err == nil {
			q = append(q, line)
			size += len(line) + 1
			for len(q)-head > lines || size > limit {
				size -= len(q[head]) + 1
				q[head], head, truncated = "", head+1, true
			}
			if head > 1024 && head > len(q)/2 {
				q, head = slices.Clone(q[head:]), 0
			}
		}
		if err == io.EOF {
			return slices.Clone(q[head:]), truncated, nil
		}
		if err != nil {
			return slices.Clone(q[head:]), truncated, err
		}
	}
}

// readLine reads one line without its end, cut to limit-1 bytes (the
// rest of a longer line is discarded).
func readLine(br *bufio.Reader, limit int) (string, error) {
	var b bytes.Buffer
	for {
		chunk, err := br.ReadSlice('\n')
		if room := limit - 1 - b.Len(); room > 0 {
			b.Write(chunk[:min(len(chunk), room)])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimSuffix(b.String(), "\n"), err
	}
}

func defaultContainer(p *corev1.Pod) string {
	if c := p.Annotations["kubectl.kubernetes.io/default-container"]; c != "" {
		return c
	}
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	return ""
}

// readyPod returns the oldest ready pod of target in namespace.
func (cl *Cluster) readyPod(ctx context.Context, namespace, target string) (*corev1.Pod, error) {
	kind, name, ok := strings.Cut(target, "/")
	if !ok || !dnsName.MatchString(name) {
		return nil, badInput("target %q: want deployment/NAME, statefulset/NAME, service/NAME or pod/NAME", target)
	}
	cs := cl.c.Clientset
	var sel *metav1.LabelSelector
	switch strings.ToLower(kind) {
	case "pod":
		p, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("read Pod/%s/%s: %w", namespace, name, err)
		}
		return p, nil
	case "deployment", "deploy":
		d, err := cs.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("read Deployment/%s/%s: %w", namespace, name, err)
		}
		sel = d.Spec.Selector
	case "statefulset", "sts":
		s, err := cs.AppsV1().StatefulSets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("read StatefulSet/%s/%s: %w", namespace, name, err)
		}
		sel = s.Spec.Selector
	case "service", "svc":
		s, err := cs.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("read Service/%s/%s: %w", namespace, name, err)
		}
		sel = &metav1.LabelSelector{MatchLabels: s.Spec.Selector}
	default:
		return nil, badInput("target %q: want deployment/NAME, statefulset/NAME, service/NAME or pod/NAME", target)
	}
	return cl.oldestReady(ctx, namespace, target, sel)
}

func (cl *Cluster) oldestReady(ctx context.Context, namespace, target string, ls *metav1.LabelSelector) (*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || sel.Empty() || sel == labels.Nothing() {
		return nil, fmt.Errorf("%s in namespace %s selects no pods", target, namespace)
	}
	list, err := cl.c.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("list pods of %s in namespace %s: %w", target, namespace, err)
	}
	var best *corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		if !access.PodReady(p) {
			continue
		}
		if best == nil || p.CreationTimestamp.Before(&best.CreationTimestamp) || (p.CreationTimestamp.Equal(&best.CreationTimestamp) && p.Name < best.Name) {
			best = p
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%s in namespace %s has no ready pod", target, namespace)
	}
	return best, nil
}
