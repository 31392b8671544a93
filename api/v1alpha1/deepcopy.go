package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyObject returns a deep copy of the Release.
func (r *Release) DeepCopyObject() runtime.Object { return r.DeepCopy() }

// DeepCopy returns a deep copy of the Release.
func (r *Release) DeepCopy() *Release {
	if r == nil {
		return nil
	}
	out := &Release{TypeMeta: r.TypeMeta}
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = r.Spec.DeepCopy()
	out.Status = r.Status.DeepCopy()
	return out
}

// DeepCopyObject returns a deep copy of the list.
func (l *ReleaseList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &ReleaseList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Release, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopy()
		}
	}
	return out
}

// DeepCopy returns a deep copy of the spec.
func (s ReleaseSpec) DeepCopy() ReleaseSpec {
	out := s
	out.StateSigners = cloneStrings(s.StateSigners)
	if s.Source.OCI != nil {
		o := *s.Source.OCI
		o.SecretRef = cloneRef(o.SecretRef)
		out.Source.OCI = &o
	}
	if s.Source.Git != nil {
		g := *s.Source.Git
		g.SecretRef = cloneRef(g.SecretRef)
		out.Source.Git = &g
	}
	if s.Checks != nil {
		out.Checks = make([]Check, len(s.Checks))
		for i, c := range s.Checks {
			if c.Retries != nil {
				r := *c.Retries
				c.Retries = &r
			}
			if c.HTTP != nil {
				h := *c.HTTP
				c.HTTP = &h
			}
			if c.TCP != nil {
				tc := *c.TCP
				c.TCP = &tc
			}
			out.Checks[i] = c
		}
	}
	if s.Policy != nil {
		p := *s.Policy
		p.Actions = cloneStrings(p.Actions)
		out.Policy = &p
	}
	if s.Drift != nil {
		d := *s.Drift
		out.Drift = &d
	}
	out.Pin = s.Pin.DeepCopy()
	return out
}

// DeepCopy returns a deep copy of the status.
func (s ReleaseStatus) DeepCopy() ReleaseStatus {
	out := s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	if s.Plan != nil {
		p := *s.Plan
		if s.Plan.Counts != nil {
			p.Counts = make(map[string]int32, len(s.Plan.Counts))
			for k, v := range s.Plan.Counts {
				p.Counts[k] = v
			}
		}
		if s.Plan.Changes != nil {
			p.Changes = make([]Change, len(s.Plan.Changes))
			for i, c := range s.Plan.Changes {
				c.Fields = cloneStrings(c.Fields)
				p.Changes[i] = c
			}
		}
		out.Plan = &p
	}
	if s.Checks != nil {
		out.Checks = append([]CheckResult(nil), s.Checks...)
	}
	if s.Failure != nil {
		f := *s.Failure
		out.Failure = &f
	}
	if s.Pin != nil {
		p := *s.Pin
		s.Pin.At.DeepCopyInto(&p.At)
		out.Pin = &p
	}
	if s.Stopped != nil {
		t := *s.Stopped
		s.Stopped.At.DeepCopyInto(&t.At)
		out.Stopped = &t
	}
	if s.Runs != nil {
		out.Runs = make([]RunSummary, len(s.Runs))
		for i, r := range s.Runs {
			if r.Finished != nil {
				f := *r.Finished
				r.Finished = &f
			}
			out.Runs[i] = r
		}
	}
	if s.Drift != nil {
		out.Drift = s.Drift.DeepCopy()
	}
	return out
}

// DeepCopy returns a deep copy of the drift status.
func (d *DriftStatus) DeepCopy() *DriftStatus {
	out := *d
	if d.Objects != nil {
		out.Objects = make([]DriftedObject, len(d.Objects))
		for i, o := range d.Objects {
			o.Fields = append([]DriftedField(nil), o.Fields...)
			out.Objects[i] = o
		}
	}
	return &out
}

// DeepCopy returns a deep copy of the pin.
func (p *Pin) DeepCopy() *Pin {
	if p == nil {
		return nil
	}
	out := *p
	p.At.DeepCopyInto(&out.At)
	return &out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

func cloneRef(r *corev1.LocalObjectReference) *corev1.LocalObjectReference {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}
