package dev.provbench.measure;

import dev.provbench.evidence.AuditLog;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.NonResourcePolicyRule;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PolicyRulesWithSubjects;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.ResourcePolicyRule;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.Subject;

import java.util.Comparator;
import java.util.List;

/**
 * Which flow schema (and so priority level) API Priority and Fairness puts a request in, as kube-apiserver
 * decides it: the first FlowSchema by {@code matchingPrecedence} (then name) with a rule whose subjects match the
 * request's user or groups and whose resource or non-resource rules match its verb, API group, resource and
 * namespace or path ({@code *} matching any; {@code clusterScope} for cluster-scoped objects; a path rule
 * ending in {@code /*} matching by prefix).
 */
final class FlowMatch {
    private final List<FlowSchema> schemas;

    FlowMatch(List<FlowSchema> schemas) {
        this.schemas = schemas.stream().sorted(Comparator.<FlowSchema>comparingInt(f -> f.getSpec()
                .getMatchingPrecedence() == null ? 1000 : f.getSpec().getMatchingPrecedence())
                .thenComparing(f -> f.getMetadata().getName())).toList();
    }

    /** "flow schema → priority level", or null when none matches (kube-apiserver would use catch-all). */
    String classify(AuditLog.Shape r) {
        for (FlowSchema f : schemas) {
            if (f.getSpec().getRules() == null) {
                continue;
            }
            for (PolicyRulesWithSubjects rule : f.getSpec().getRules()) {
                if (subjects(rule.getSubjects(), r) && (resources(rule.getResourceRules(), r)
                        || nonResources(rule.getNonResourceRules(), r))) {
                    return f.getMetadata().getName() + " → " + f.getSpec().getPriorityLevelConfiguration().getName();
                }
            }
        }
        return null;
    }

    private static boolean subjects(List<Subject> subjects, AuditLog.Shape r) {
        if (subjects == null) {
            return false;
        }
        for (Subject s : subjects) {
            switch (s.getKind()) {
                case "User" -> {
                    if (s.getUser() != null && ("*".equals(s.getUser().getName()) || r.user().equals(s.getUser().getName()))) {
                        return true;
                    }
                }
                case "Group" -> {
                    if (s.getGroup() != null && ("*".equals(s.getGroup().getName())
                            || r.groups().contains(s.getGroup().getName()))) {
                        return true;
                    }
                }
                case "ServiceAccount" -> {
                    if (s.getServiceAccount() != null && r.user().startsWith("system:serviceaccount:")) {
                        String[] p = r.user().split(":", 4);
                        boolean ns = "*".equals(s.getServiceAccount().getNamespace())
                                || p.length == 4 && p[2].equals(s.getServiceAccount().getNamespace());
                        boolean name = "*".equals(s.getServiceAccount().getName())
                                || p.length == 4 && p[3].equals(s.getServiceAccount().getName());
                        if (ns && name) {
                            return true;
                        }
                    }
                }
                default -> {
                }
            }
        }
        return false;
    }

    private static boolean any(List<String> values, String v) {
        return values != null && (values.contains("*") || values.contains(v));
    }

    private static boolean resources(List<ResourcePolicyRule> rules, AuditLog.Shape r) {
        if (rules == null || r.resource().isEmpty()) {
            return false;
        }
        for (ResourcePolicyRule rule : rules) {
            boolean scope = r.namespace().isEmpty() ? Boolean.TRUE.equals(rule.getClusterScope())
                    : any(rule.getNamespaces(), r.namespace());
            if (any(rule.getVerbs(), r.verb()) && any(rule.getApiGroups(), r.apiGroup())
                    && any(rule.getResources(), r.resource()) && scope) {
                return true;
            }
        }
        return false;
    }

    private static boolean nonResources(List<NonResourcePolicyRule> rules, AuditLog.Shape r) {
        if (rules == null || r.path().isEmpty()) {
            return false;
        }
        for (NonResourcePolicyRule rule : rules) {
            if (!any(rule.getVerbs(), r.verb()) || rule.getNonResourceURLs() == null) {
                continue;
            }
            for (String u : rule.getNonResourceURLs()) {
                if (u.equals("*") || u.equals(r.path()) || u.endsWith("/*") && r.path().startsWith(u.substring(0,
                        u.length() - 1))) {
                    return true;
                }
            }
        }
        return false;
    }
}
