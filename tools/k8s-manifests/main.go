// Command k8s-manifests renders kustomizations with kustomize's own library
// (krusty) and decodes every resource strictly into Kubernetes' API types
// (k8s.io/api), so that an unknown field, a wrong type or a kind we do not
// know is an error. It prints the decoded resources as JSON:
// {"<dir>": [{"apiVersion": ..., "kind": ..., ...}], ...}.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// decoded returns a new typed object for a kind the deployment files may hold.
func decoded(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "apps/v1 DaemonSet":
		return &appsv1.DaemonSet{}, nil
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}, nil
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		return &rbacv1.ClusterRole{}, nil
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		return &rbacv1.ClusterRoleBinding{}, nil
	}
	return nil, fmt.Errorf("unexpected resource %s %s", apiVersion, kind)
}

func render(dir string) ([]any, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, resource := range resources.Resources() {
		text, err := resource.AsYAML()
		if err != nil {
			return nil, err
		}
		object, err := decoded(resource.GetApiVersion(), resource.GetKind())
		if err != nil {
			return nil, err
		}
		if err := yaml.UnmarshalStrict(text, object); err != nil {
			return nil, fmt.Errorf("%s %s: %w", resource.GetKind(), resource.GetName(), err)
		}
		out = append(out, object)
	}
	return out, nil
}

func main() {
	rendered := map[string]any{}
	failed := false
	for _, dir := range os.Args[1:] {
		resources, err := render(dir)
		if err != nil {
			rendered[dir] = map[string]string{"error": err.Error()}
			failed = true
			continue
		}
		rendered[dir] = resources
	}
	if err := json.NewEncoder(os.Stdout).Encode(rendered); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}
