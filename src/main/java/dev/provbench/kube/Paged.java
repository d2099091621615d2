package dev.provbench.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.dsl.Listable;

import java.util.function.Consumer;

/**
 * A LIST read in pages of {@link #PAGE}, each page's objects handed on and dropped before the next is asked for: what
 * the tool lists beside a population (every PV of a cluster holding 50,000) never sits in its heap whole, decoded
 * into fabric8's model (docs/benchmarks.md, "The tool beside 50,000 PVs"). A continue token that expired meanwhile
 * (HTTP 410) is thrown as fabric8 throws it.
 */
public final class Paged {
    /** Objects per page: client-go's pager's default. */
    public static final long PAGE = 500;

    private Paged() {
    }

    /** Hands every object {@code op} lists to {@code each}, a page at a time. */
    public static <T extends HasMetadata, L extends KubernetesResourceList<T>> void each(Listable<L> op,
            Consumer<? super T> each) {
        String token = null;
        do {
            L page = op.list(new ListOptionsBuilder().withLimit(PAGE).withContinue(token).build());
            page.getItems().forEach(each);
            token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (token != null && !token.isEmpty());
    }
}
