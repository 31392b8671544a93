// Command kwok-stages prints the Stage documents kwokctl v0.8.0 writes for a
// binary-runtime cluster when its configuration holds no Stage: node
// initialize, node heartbeat (with lease), pod ready, pod complete and pod
// delete, as one multi-document YAML stream.
//
// kwokctl drops every default stage once its --config carries a Stage of its
// own, so the Piceli sandbox starts from this output, edits it and appends
// its own stages. The stages come from kwok's own Go strings and are
// processed as kwokctl's runtime.Cluster.Save does (see getDefaultNodeStages
// and getDefaultPodStages in sigs.k8s.io/kwok/pkg/kwokctl/runtime), including
// the heartbeat delay raised to the node status update frequency.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat"
	nodeheartbeatwithlease "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	configv1alpha1 "sigs.k8s.io/kwok/pkg/apis/config/v1alpha1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/config"
)

func main() {
	freq, lease, err := defaultHeartbeat()
	if err != nil {
		fail(err)
	}
	flag.Int64Var(&freq, "node-status-update-frequency-ms", freq,
		"kwokctl's nodeStatusUpdateFrequencyMilliseconds after its heartbeat factor")
	flag.UintVar(&lease, "node-lease-duration-seconds", lease,
		"kwokctl's nodeLeaseDurationSeconds after its heartbeat factor; 0 selects the heartbeat stage without lease")
	flag.Parse()
	objs, err := defaultStages(freq, lease != 0)
	if err != nil {
		fail(err)
	}
	if err := config.SaveTo(context.Background(), os.Stdout, objs); err != nil {
		fail(fmt.Errorf("write stages: %w", err))
	}
	fmt.Println()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kwok-stages:", err)
	os.Exit(1)
}

// defaultHeartbeat returns the node status update frequency and lease
// duration kwokctl create cluster uses when neither flags nor configuration
// set them: kwok's API defaults multiplied by its default heartbeat factor.
func defaultHeartbeat() (freqMillis int64, leaseSeconds uint, err error) {
	versioned := &configv1alpha1.KwokctlConfiguration{}
	configv1alpha1.SetObjectDefaults_KwokctlConfiguration(versioned)
	conf, err := internalversion.ConvertToInternalKwokctlConfiguration(versioned)
	if err != nil {
		return 0, 0, fmt.Errorf("default kwokctl configuration: %w", err)
	}
	opts := conf.Options
	freqMillis, leaseSeconds = opts.NodeStatusUpdateFrequencyMilliseconds, opts.NodeLeaseDurationSeconds
	if f := opts.HeartbeatFactor; f != 0 && f != 1 {
		freqMillis = int64(float64(freqMillis) * f)
		leaseSeconds = uint(float64(leaseSeconds) * f)
	}
	return freqMillis, leaseSeconds, nil
}

// defaultStages returns kwokctl's default node stages followed by its
// default pod stages.
func defaultStages(updateFrequency int64, lease bool) ([]config.InternalObject, error) {
	nodes, err := defaultNodeStages(updateFrequency, lease)
	if err != nil {
		return nil, err
	}
	for _, raw := range []string{podfast.DefaultPodReady, podfast.DefaultPodComplete, podfast.DefaultPodDelete} {
		obj, err := config.UnmarshalWithType[config.InternalObject](raw)
		if err != nil {
			return nil, fmt.Errorf("read kwok's default pod stage: %w", err)
		}
		nodes = append(nodes, obj)
	}
	return nodes, nil
}

// defaultNodeStages mirrors kwokctl's getDefaultNodeStages.
func defaultNodeStages(updateFrequency int64, lease bool) ([]config.InternalObject, error) {
	initStage, err := config.UnmarshalWithType[*internalversion.Stage](nodefast.DefaultNodeInit)
	if err != nil {
		return nil, fmt.Errorf("read kwok's node-initialize stage: %w", err)
	}
	raw := nodeheartbeat.DefaultNodeHeartbeat
	if lease {
		raw = nodeheartbeatwithlease.DefaultNodeHeartbeatWithLease
	}
	heartbeat, err := config.UnmarshalWithType[*internalversion.Stage](raw)
	if err != nil {
		return nil, fmt.Errorf("read kwok's node heartbeat stage: %w", err)
	}
	raiseHeartbeatDelay(heartbeat, updateFrequency)
	return []config.InternalObject{initStage, heartbeat}, nil
}

// raiseHeartbeatDelay makes the heartbeat no more frequent than the node
// status update frequency, with 10% jitter, as kwokctl does.
func raiseHeartbeatDelay(s *internalversion.Stage, updateFrequency int64) {
	if updateFrequency <= 0 || s.Spec.Delay == nil {
		return
	}
	duration := elem(s.Spec.Delay.DurationMilliseconds)
	jitter := elem(s.Spec.Delay.JitterDurationMilliseconds)
	duration = max(duration, updateFrequency)
	jitter = max(jitter, updateFrequency+updateFrequency/10)
	s.Spec.Delay.DurationMilliseconds = &duration
	s.Spec.Delay.JitterDurationMilliseconds = &jitter
}

func elem(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
