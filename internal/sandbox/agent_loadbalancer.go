package sandbox

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// loadBalancers keeps the ingress address of every LoadBalancer Service at
// 127.0.0.1, as kind's cloud provider and k3s's service load balancer do
// for local clusters, and clears it from a Service that is no longer of
// that type. Nothing listens at the address: it tells readiness checks and
// users that the Service is "provisioned"; reach the Service through a
// port-forward. A Service naming a loadBalancerClass belongs to another
// implementation and is left alone. No finalizer is added, so deleting a
// Service never waits for the agent.
type loadBalancers struct {
	cs       kubernetes.Interface
	services corelisters.ServiceLister
	queue    workqueue.TypedRateLimitingInterface[string]
}

func newLoadBalancers(cs kubernetes.Interface, factory informers.SharedInformerFactory) *loadBalancers {
	inf := factory.Core().V1().Services()
	lb := &loadBalancers{
		cs:       cs,
		services: inf.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "load-balancers"}),
	}
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			lb.queue.Add(key)
		}
	}
	inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return lb
}

// run works the queue with two workers until ctx ends.
func (lb *loadBalancers) run(ctx context.Context) {
	defer lb.queue.ShutDown()
	for range 2 {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for lb.next(ctx) {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

// next syncs one queued Service; false once the queue shuts down.
func (lb *loadBalancers) next(ctx context.Context) bool {
	key, quit := lb.queue.Get()
	if quit {
		return false
	}
	defer lb.queue.Done(key)
	if err := lb.sync(ctx, key); err != nil {
		klog.FromContext(ctx).Error(err, "sync load balancer", "service", key)
		lb.queue.AddRateLimited(key)
		return true
	}
	lb.queue.Forget(key)
	return true
}

// sync writes the Service's status when it differs from the one wanted.
func (lb *loadBalancers) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := lb.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	want, ok := wantedIngress(svc)
	if !ok || sameIngress(svc.Status.LoadBalancer.Ingress, want) {
		return nil
	}
	svc = svc.DeepCopy()
	svc.Status.LoadBalancer.Ingress = want
	_, err = lb.cs.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of Service/%s/%s: %w", ns, name, err)
	}
	return nil
}

// wantedIngress is the ingress the Service should report, and false when
// the agent leaves the Service alone.
func wantedIngress(svc *corev1.Service) ([]corev1.LoadBalancerIngress, bool) {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil, true // clear an address left from when it was one
	}
	if svc.Spec.LoadBalancerClass != nil {
		return nil, false
	}
	vip := corev1.LoadBalancerIPModeVIP
	return []corev1.LoadBalancerIngress{{IP: LoopbackIP, IPMode: &vip}}, true
}

// sameIngress compares the addresses only: the API server may default
// fields such as ipMode, which must not make the agent write again.
func sameIngress(got, want []corev1.LoadBalancerIngress) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].IP != want[i].IP || got[i].Hostname != want[i].Hostname {
			return false
		}
	}
	return true
}
