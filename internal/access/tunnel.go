package access

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
)

// errorStreamWait bounds how long a finished local connection waits for
// the pod side's error stream to close before resetting it.
const errorStreamWait = 5 * time.Second

// tunnel is one port-forward connection to one pod. Every local connection
// to any of its Service's forwarded ports becomes a pair of streams on it
// (an error stream and a data stream, as the port-forward protocol has
// them). Whoever replaces or ends a tunnel closes its connection, which
// ends every stream on it.
type tunnel struct {
	pod   string
	conn  httpstream.Connection
	ports map[int32]int32 // service port → the pod's port

	mu     sync.Mutex
	nextID int
}

func (t *tunnel) requestID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextID++
	return strconv.Itoa(t.nextID)
}

// serve copies between local and the pod's port behind servicePort until
// either side ends. What the pod side sent on the error stream (the app
// refused the connection, say) goes to report before local is closed, so
// whoever sees the connection end can already know why; once done is
// closed (the session ends) it is not waited for. Every goroutine serve
// starts has ended when it returns.
func (t *tunnel) serve(local net.Conn, servicePort int32, done <-chan struct{}, report func(msg string)) {
	defer local.Close()
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(int(t.ports[servicePort])))
	headers.Set(corev1.PortForwardRequestIDHeader, t.requestID())
	errStream, err := t.conn.CreateStream(headers)
	if err != nil {
		report("create error stream: " + err.Error())
		return
	}
	errStream.Close() // nothing is written to it
	defer t.conn.RemoveStreams(errStream)
	errc := make(chan string, 1)
	go func() {
		msg, _ := io.ReadAll(errStream)
		errc <- strings.TrimSpace(string(msg))
	}()
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := t.conn.CreateStream(headers)
	if err != nil {
		errStream.Reset()
		<-errc
		report("create data stream: " + err.Error())
		return
	}
	defer t.conn.RemoveStreams(data)
	copyBoth(local, data)
	if msg := waitErrorStream(errStream, errc, done); msg != "" {
		report(msg)
	}
}

// copyBoth copies in both directions until the pod side ends or the local
// side fails, then discards what is left, and waits for both copies. It
// leaves local open (unreadable) for the caller to close.
func copyBoth(local net.Conn, data httpstream.Stream) {
	remoteDone, localDone := make(chan struct{}), make(chan struct{})
	go func() {
		io.Copy(local, data)
		close(remoteDone)
	}()
	go func() {
		io.Copy(data, local)
		data.Close() // tell the pod side nothing more comes
		close(localDone)
	}()
	select {
	case <-remoteDone:
	case <-localDone:
		// The local side ended its half: the answer may still come.
		<-remoteDone
	}
	data.Reset()
	local.SetReadDeadline(time.Now()) // ends the local-to-pod copy
	<-localDone
}

// waitErrorStream returns the error stream's message once it closes, or
// resets it after errorStreamWait, or at once when done is closed: a
// session that ends (Ctrl-C) does not wait for the pod side's last word,
// and a command gets only a few seconds to end once interrupted.
func waitErrorStream(s httpstream.Stream, errc <-chan string, done <-chan struct{}) string {
	wait := time.NewTimer(errorStreamWait)
	defer wait.Stop()
	select {
	case msg := <-errc:
		return msg
	case <-wait.C:
	case <-done:
	}
	s.Reset()
	return <-errc
}
