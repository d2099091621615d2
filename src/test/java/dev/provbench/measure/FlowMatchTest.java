package dev.provbench.measure;

import dev.provbench.evidence.AuditLog;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchemaBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class FlowMatchTest {
    private static FlowSchema sa(String name, int precedence, String pl, String ns, String verb) {
        return new FlowSchemaBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withMatchingPrecedence(precedence).withNewPriorityLevelConfiguration(pl).addNewRule()
                .addNewSubject().withKind("ServiceAccount").withNewServiceAccount("*", ns).endSubject()
                .addNewResourceRule().withVerbs(verb).withApiGroups("*").withResources("*").withNamespaces("*")
                .withClusterScope(true).endResourceRule().endRule().endSpec().build();
    }

    private static FlowSchema group(String name, int precedence, String pl, String group) {
        return new FlowSchemaBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withMatchingPrecedence(precedence).withNewPriorityLevelConfiguration(pl).addNewRule()
                .addNewSubject().withKind("Group").withNewGroup(group).endSubject()
                .addNewResourceRule().withVerbs("*").withApiGroups("*").withResources("*").withNamespaces("*")
                .withClusterScope(true).endResourceRule()
                .addNewNonResourceRule().withVerbs("*").withNonResourceURLs("*").endNonResourceRule().endRule()
                .endSpec().build();
    }

    @Test
    void theFirstMatchingSchemaByPrecedenceThenNameWins() {
        FlowMatch m = new FlowMatch(List.of(sa("service-accounts", 9000, "workload-low", "*", "*"),
                group("exempt", 1, "exempt", "system:masters"), sa("b-tiny", 500, "tiny", "provbench", "create"),
                sa("a-tiny", 500, "tinier", "provbench", "create")));
        AuditLog.Shape create = new AuditLog.Shape("system:serviceaccount:provbench:csi-provisioner",
                List.of("system:serviceaccounts"), "create", "", "persistentvolumes", "", "");
        assertEquals("a-tiny → tinier", m.classify(create));
        AuditLog.Shape list = new AuditLog.Shape("system:serviceaccount:provbench:csi-provisioner",
                List.of("system:serviceaccounts"), "list", "", "persistentvolumeclaims", "default", "");
        assertEquals("service-accounts → workload-low", m.classify(list));
        AuditLog.Shape admin = new AuditLog.Shape("provbench-load", List.of("system:masters"), "get", "", "", "",
                "/metrics");
        assertEquals("exempt → exempt", m.classify(admin));
        AuditLog.Shape other = new AuditLog.Shape("alice", List.of("devs"), "get", "", "pods", "default", "");
        assertNull(m.classify(other));
    }
}
