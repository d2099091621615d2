package dev.provbench.csi.state;

import java.util.List;

/** One page of a listing; {@code nextToken} is empty on the last page. */
public record Page<T>(List<T> entries, String nextToken) {
}
