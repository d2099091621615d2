package dev.provbench.kube;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeList;
import io.fabric8.kubernetes.api.model.PersistentVolumeListBuilder;
import io.fabric8.kubernetes.client.dsl.Listable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PagedTest {
    /** A collection of {@code n} PVs served in pages of what the request asks, with a continue token "at-<index>". */
    static class Pages implements Listable<PersistentVolumeList> {
        final int n;
        final List<ListOptions> asked = new ArrayList<>();
        int handedOut; // how many objects the pages so far held

        Pages(int n) {
            this.n = n;
        }

        @Override
        public PersistentVolumeList list(ListOptions o) {
            asked.add(o);
            int from = o.getContinue() == null ? 0 : Integer.parseInt(o.getContinue().substring(3));
            int to = (int) Math.min(n, from + o.getLimit());
            List<PersistentVolume> items = new ArrayList<>();
            for (int i = from; i < to; i++) {
                items.add(new PersistentVolumeBuilder().withNewMetadata().withName("pv-" + i).endMetadata().build());
            }
            handedOut += items.size();
            return new PersistentVolumeListBuilder().withNewMetadata().withContinue(to < n ? "at-" + to : "")
                    .endMetadata().withItems(items).build();
        }

        @Override
        public PersistentVolumeList list() {
            throw new AssertionError("an unpaged LIST");
        }

        @Override
        public PersistentVolumeList list(Integer limit, String token) {
            throw new AssertionError("the deprecated form");
        }
    }

    @Test
    void everyObjectOnceInOrderAPageAtATime() {
        Pages pages = new Pages(1_234);
        List<String> seen = new ArrayList<>();
        List<Integer> heldWhenSeen = new ArrayList<>();
        Paged.each(pages, (PersistentVolume v) -> {
            seen.add(v.getMetadata().getName());
            heldWhenSeen.add(pages.handedOut);
        });
        assertEquals(1_234, seen.size());
        for (int i = 0; i < seen.size(); i++) {
            assertEquals("pv-" + i, seen.get(i));
            // an object is handed on before the next page is asked for
            assertEquals(Math.min(1_234, (i / (int) Paged.PAGE + 1) * (int) Paged.PAGE), heldWhenSeen.get(i));
        }
        assertEquals(3, pages.asked.size());
        assertEquals(List.of(500L, 500L, 500L), pages.asked.stream().map(ListOptions::getLimit).toList());
        assertEquals(null, pages.asked.get(0).getContinue());
        assertEquals("at-500", pages.asked.get(1).getContinue());
        assertEquals("at-1000", pages.asked.get(2).getContinue());
    }

    @Test
    void anEmptyCollectionIsOneRequest() {
        Pages pages = new Pages(0);
        List<PersistentVolume> seen = new ArrayList<>();
        Paged.each(pages, seen::add);
        assertEquals(0, seen.size());
        assertEquals(1, pages.asked.size());
    }

    @Test
    void aFailingPageEndsTheListing() {
        Pages pages = new Pages(1_000) {
            @Override
            public PersistentVolumeList list(ListOptions o) {
                if (o.getContinue() != null) {
                    throw new IllegalStateException("410: the continue token expired");
                }
                return super.list(o);
            }
        };
        List<PersistentVolume> seen = new ArrayList<>();
        assertThrows(IllegalStateException.class, () -> Paged.each(pages, seen::add));
        assertEquals(500, seen.size());
    }
}
