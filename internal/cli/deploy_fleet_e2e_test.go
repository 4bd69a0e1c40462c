package cli

// deploy/kubernetes/fleet.yaml: NATS (the official image) in a
// StatefulSet and a Deployment of `rooda fleet worker`. Checked as the
// other recipes are (deploy_e2e_test.go), and run: its nats.conf starts a
// NATS server here, and the worker container's command line, given the
// environment Kubernetes would give it, works a run queued on it.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"
)

const fleetRecipe = "deploy/kubernetes/fleet.yaml"

// fleetObject is an object of the fleet's manifest: what its checks read.
type fleetObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Replicas *int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		// A Service's.
		ServiceSelector map[string]string `yaml:"-"`
		Ports           []struct {
			Port       int `yaml:"port"`
			TargetPort int `yaml:"targetPort"`
		} `yaml:"ports"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				SecurityContext k8sSecurityContext `yaml:"securityContext"`
				InitContainers  []fleetContainer   `yaml:"initContainers"`
				Containers      []fleetContainer   `yaml:"containers"`
				Volumes         []map[string]any   `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
		VolumeClaimTemplates []struct {
			Spec struct {
				AccessModes []string `yaml:"accessModes"`
			} `yaml:"spec"`
		} `yaml:"volumeClaimTemplates"`
		AccessModes []string `yaml:"accessModes"`
	} `yaml:"spec"`
}

type fleetContainer struct {
	k8sContainer `yaml:",inline"`
	Image        string `yaml:"image"`
}

// parseFleetManifest decodes every document of the manifest, and a
// Service's selector, which is a map where a workload's is matchLabels.
func parseFleetManifest(text string) ([]fleetObject, error) {
	var objects []fleetObject
	decoder := yaml.NewDecoder(strings.NewReader(text))
	for {
		var node yaml.Node
		err := decoder.Decode(&node)
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, err
		}
		var o fleetObject
		if err := node.Decode(&o); err != nil {
			return nil, err
		}
		if o.Kind == "Service" {
			var svc struct {
				Spec struct {
					Selector map[string]string `yaml:"selector"`
				} `yaml:"spec"`
			}
			if err := node.Decode(&svc); err != nil {
				return nil, err
			}
			o.Spec.ServiceSelector = svc.Spec.Selector
		}
		objects = append(objects, o)
	}
}

func objectOf(objects []fleetObject, kind string) (fleetObject, error) {
	i := slices.IndexFunc(objects, func(o fleetObject) bool { return o.Kind == kind })
	if i < 0 {
		return fleetObject{}, fmt.Errorf("no %s", kind)
	}
	return objects[i], nil
}

// fleetParts are the pieces of the fleet's manifest the checks and the
// run need.
type fleetParts struct {
	natsConf string
	service  fleetObject
	nats     fleetContainer
	worker   fleetContainer
}

var envReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// checkFleetManifest checks deploy/kubernetes/fleet.yaml's text: see
// TestDeployFleet.
func checkFleetManifest(t *testing.T, text string) error {
	_, err := fleetManifest(t, text)
	return err
}

// fleetManifest checks the manifest and returns its parts.
func fleetManifest(t *testing.T, text string) (fleetParts, error) {
	var p fleetParts
	objects, err := parseFleetManifest(text)
	if err != nil {
		return p, err
	}
	var problems []error
	for _, kind := range []string{"ConfigMap", "Service", "StatefulSet", "Deployment"} {
		if _, err := objectOf(objects, kind); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return p, errors.Join(problems...)
	}
	config, _ := objectOf(objects, "ConfigMap")
	p.service, _ = objectOf(objects, "Service")
	sts, _ := objectOf(objects, "StatefulSet")
	deploy, _ := objectOf(objects, "Deployment")
	p.natsConf = config.Data["nats.conf"]
	if p.natsConf == "" {
		problems = append(problems, fmt.Errorf("ConfigMap %s has no nats.conf", config.Metadata.Name))
	}
	for _, o := range objects {
		modes := slices.Clone(o.Spec.AccessModes)
		for _, c := range o.Spec.VolumeClaimTemplates {
			modes = append(modes, c.Spec.AccessModes...)
		}
		if slices.Contains(modes, "ReadWriteMany") {
			problems = append(problems, fmt.Errorf("%s %s asks for a ReadWriteMany volume: the fleet's state is NATS's, none is needed", o.Kind, o.Metadata.Name))
		}
	}
	for _, o := range []fleetObject{sts, deploy} {
		if !equalLabels(o.Spec.Selector.MatchLabels, o.Spec.Template.Metadata.Labels) {
			problems = append(problems, fmt.Errorf("%s %s: its selector %v does not select its pods %v", o.Kind, o.Metadata.Name, o.Spec.Selector.MatchLabels, o.Spec.Template.Metadata.Labels))
		}
		if sc := o.Spec.Template.Spec.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			problems = append(problems, fmt.Errorf("%s %s: its pods run as root", o.Kind, o.Metadata.Name))
		}
		for _, c := range slices.Concat(o.Spec.Template.Spec.InitContainers, o.Spec.Template.Spec.Containers) {
			if c.Resources.Limits["cpu"] == "" || c.Resources.Limits["memory"] == "" {
				problems = append(problems, fmt.Errorf("container %s: no cpu and memory limits", c.Name))
			}
			if c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				problems = append(problems, fmt.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name))
			}
		}
	}
	if !equalLabels(p.service.Spec.ServiceSelector, sts.Spec.Template.Metadata.Labels) {
		problems = append(problems, fmt.Errorf("Service %s selects %v, not the NATS pods %v", p.service.Metadata.Name, p.service.Spec.ServiceSelector, sts.Spec.Template.Metadata.Labels))
	}
	for _, v := range deploy.Spec.Template.Spec.Volumes {
		if v["persistentVolumeClaim"] != nil {
			problems = append(problems, fmt.Errorf("Deployment %s mounts a claim (volume %v): a worker needs no volume shared with others", deploy.Metadata.Name, v["name"]))
		}
	}
	if cs := sts.Spec.Template.Spec.Containers; len(cs) != 1 {
		problems = append(problems, fmt.Errorf("StatefulSet %s: %d containers, want NATS alone", sts.Metadata.Name, len(cs)))
	} else {
		p.nats = cs[0]
		problems = append(problems, checkNATSImage(t, p.nats.Image))
	}
	i := slices.IndexFunc(deploy.Spec.Template.Spec.Containers, func(c fleetContainer) bool { return slices.Equal(c.Command, []string{"rooda"}) })
	if i < 0 {
		return p, errors.Join(append(problems, fmt.Errorf("Deployment %s: no container's command is rooda", deploy.Metadata.Name))...)
	}
	p.worker = deploy.Spec.Template.Spec.Containers[i]
	if !slices.Equal(p.worker.Args[:min(2, len(p.worker.Args))], []string{"fleet", "worker"}) {
		problems = append(problems, fmt.Errorf("container %s runs rooda %q, not rooda fleet worker", p.worker.Name, p.worker.Args))
	}
	return p, errors.Join(append(problems, checkWorkerServer(p))...)
}

func equalLabels(a, b map[string]string) bool {
	if len(a) == 0 {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkNATSImage: NATS is the official image, at the version of
// nats-server rooda is built and tested with (go.mod).
func checkNATSImage(t *testing.T, image string) error {
	want := regexp.MustCompile(`(?m)^\s*github.com/nats-io/nats-server/v2 v(\S+)`).FindStringSubmatch(readRepoFile(t, "go.mod"))[1]
	name, tag, _ := strings.Cut(image, ":")
	if name != "nats" || strings.SplitN(tag, "-", 2)[0] != want {
		return fmt.Errorf("NATS's image is %s, not the official nats at go.mod's nats-server v%s", image, want)
	}
	return nil
}

// checkWorkerServer: the worker names the Service as its server, with the
// token the server asks for, both from the Secret the server's token
// comes from.
func checkWorkerServer(p fleetParts) error {
	url := envValue(p.worker, "ROODA_FLEET_SERVER")
	want := fmt.Sprintf("@%s:%d", p.service.Metadata.Name, servicePort(p.service))
	if !strings.HasPrefix(url, "nats://") || !strings.HasSuffix(url, want) {
		return fmt.Errorf("container %s: ROODA_FLEET_SERVER %q is not nats://TOKEN%s, the Service's", p.worker.Name, url, want)
	}
	var problems []error
	for _, m := range envReference.FindAllStringSubmatch(url, -1) {
		if !slices.Contains(secretEnvNames(p.worker), m[1]) {
			problems = append(problems, fmt.Errorf("container %s: ROODA_FLEET_SERVER's $(%s) comes from no Secret", p.worker.Name, m[1]))
		}
		if ws, ns := secretOf(p.worker, m[1]), secretOf(p.nats, confTokenVariable(p.natsConf)); ws != ns || ws == "" {
			problems = append(problems, fmt.Errorf("container %s's token is the Secret key %q, the server's %q", p.worker.Name, ws, ns))
		}
	}
	return errors.Join(problems...)
}

// confTokenVariable is the environment variable nats.conf's token is.
func confTokenVariable(conf string) string {
	m := regexp.MustCompile(`token:\s*\$(\w+)`).FindStringSubmatch(conf)
	if m == nil {
		return ""
	}
	return m[1]
}

func envValue(c fleetContainer, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func secretEnvNames(c fleetContainer) []string {
	var names []string
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			names = append(names, e.Name)
		}
	}
	return names
}

// secretOf is the Secret and key the variable name comes from, "" if none.
func secretOf(c fleetContainer, name string) string {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
	}
	return ""
}

func servicePort(s fleetObject) int {
	if len(s.Spec.Ports) == 0 {
		return 0
	}
	return s.Spec.Ports[0].Port
}

// TestDeployFleet: deploy/kubernetes/fleet.yaml parses into a ConfigMap
// holding nats.conf, a Service selecting the StatefulSet's NATS pods, the
// StatefulSet (the official nats image at go.mod's version) and the
// Deployment of workers running rooda fleet worker, whose server is the
// Service's with the token from the Secret the server's is; no
// ReadWriteMany volume, no claim for the workers; pods not root, every
// container limited.
func TestDeployFleet(t *testing.T) {
	checkRecipe(t, fleetRecipe)
}

// TestDeployFleetWorks: the manifest's nats.conf, given the Secret's
// token in its environment as the StatefulSet gives it, starts a NATS
// server with JetStream that takes only clients with the token; and the
// worker container's command line, run by the real rooda with the
// environment the Deployment gives it (the Service's name resolved to
// the server here), works a run queued there to its end.
func TestDeployFleetWorks(t *testing.T) {
	p, err := fleetManifest(t, readRepoFile(t, fleetRecipe))
	must(t, err)
	secret := make([]byte, 24)
	rand.Read(secret)
	token := hex.EncodeToString(secret)
	tokenVar := confTokenVariable(p.natsConf)
	t.Setenv(tokenVar, token) // as the StatefulSet's env gives it to nats
	ns := startNATSConf(t, p.natsConf, token, p.service.Spec.Ports[0].TargetPort)

	w := newWorkspace(t, step{"output": successSignal + "\n"})
	fleetBinaries(t)
	w.gitInit()
	w.env = append(w.env, "XDG_STATE_HOME="+t.TempDir())
	here := strings.NewReplacer(fmt.Sprintf("%s:%d", p.service.Metadata.Name, servicePort(p.service)), strings.TrimPrefix(ns.ClientURL(), "nats://"))
	// The Deployment's environment as Kubernetes makes it: the Secrets'
	// values, $(NAME) replaced by the variable defined before it.
	var env []string
	values := map[string]string{}
	for _, e := range p.worker.Env {
		value := e.Value
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.Name == tokenVar:
			value = token
		case e.ValueFrom != nil:
			value = "sample"
		case strings.HasPrefix(e.Name, "OTEL_"):
			continue // the cluster's collector
		}
		value = envReference.ReplaceAllStringFunc(value, func(ref string) string { return values[envReference.FindStringSubmatch(ref)[1]] })
		values[e.Name] = value
		env = append(env, e.Name+"="+here.Replace(value))
	}
	f := &testFleet{w: w, url: here.Replace(values["ROODA_FLEET_SERVER"]), state: t.TempDir()}
	if !strings.Contains(f.url, token) {
		t.Fatalf("the worker's server %q has no token", f.url)
	}
	noToken := exec.Command(binary(t), "fleet", "status", "--server", strings.Replace(f.url, token+"@", "", 1))
	noToken.Dir, noToken.Env = w.dir, w.env
	if out, err := noToken.CombinedOutput(); err == nil {
		t.Errorf("the server took a client without the token:\n%s", out)
	}
	f.fleet("add", "--name", "in-the-cluster", "build", "-n", "1", "--ai-cmd", w.aiCmd())

	workspaces := t.TempDir()
	args := slices.Clone(p.worker.Args)
	for i, a := range args {
		if a == flagValue(p.worker.Args, "--workspaces") {
			args[i] = workspaces
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*hangGuard)
	defer cancel()
	worker := exec.CommandContext(ctx, binary(t), args...)
	log, err := os.Create(filepath.Join(f.state, "worker.log"))
	must(t, err)
	worker.Dir, worker.Env, worker.Stdout, worker.Stderr = w.dir, append(slices.Clone(w.env), env...), log, log
	must(t, worker.Start())
	t.Cleanup(func() { stop(worker); log.Close() })
	st := f.waitEnded(1)[0]
	if st.Status != "success" || !strings.HasPrefix(st.Workspace, workspaces) {
		t.Errorf("the run: %+v, want success in a workspace under %s\n%s", st, workspaces, f.workerLogs())
	}
}

// startNATSConf starts a NATS server of conf, as the StatefulSet's
// container does, here: its files in a directory of the test's, on a free
// port of 127.0.0.1, its monitoring off. It checks that conf turns
// JetStream on and asks clients for token.
func startNATSConf(t *testing.T, conf, token string, port int) *server.Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nats.conf")
	must(t, os.WriteFile(path, []byte(conf), 0o600))
	opts, err := server.ProcessConfigFile(path)
	must(t, err)
	if !opts.JetStream || opts.Authorization != token {
		t.Fatalf("nats.conf: JetStream %v, token %q; want JetStream on and the Secret's token", opts.JetStream, opts.Authorization)
	}
	if opts.Port != port {
		t.Fatalf("nats.conf listens on %d, not the Service's target port %d", opts.Port, port)
	}
	opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", server.RANDOM_PORT, 0
	opts.StoreDir, opts.NoSigs = t.TempDir(), true
	ns, err := server.NewServer(opts)
	must(t, err)
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(hangGuard) {
		t.Fatal("the NATS server of nats.conf did not start")
	}
	return ns
}
