package dev.provbench.csi.state;

import java.util.Map;

/**
 * One volume. Immutable: the store replaces it atomically on every change.
 *
 * @param seq            creation order, used as the ListVolumes position
 * @param source         null when created empty
 * @param publishedNodes node ID → read-only, from ControllerPublishVolume
 * @param stagingPath    null unless NodeStageVolume was called
 * @param targets        target path → read-only, from NodePublishVolume
 */
public record Volume(String id, String name, long capacityBytes, Map<String, String> parameters,
                     Map<String, String> mutableParameters, Source source, long seq,
                     Map<String, Boolean> publishedNodes, String stagingPath, Map<String, Boolean> targets) {

    public Volume {
        parameters = Map.copyOf(parameters);
        mutableParameters = Map.copyOf(mutableParameters);
        publishedNodes = Map.copyOf(publishedNodes);
        targets = Map.copyOf(targets);
    }

    Volume withCapacity(long bytes) {
        return new Volume(id, name, bytes, parameters, mutableParameters, source, seq, publishedNodes, stagingPath,
                targets);
    }

    Volume withMutableParameters(Map<String, String> params) {
        return new Volume(id, name, capacityBytes, parameters, params, source, seq, publishedNodes, stagingPath,
                targets);
    }

    Volume withPublishedNodes(Map<String, Boolean> nodes) {
        return new Volume(id, name, capacityBytes, parameters, mutableParameters, source, seq, nodes, stagingPath,
                targets);
    }

    Volume withStagingPath(String path) {
        return new Volume(id, name, capacityBytes, parameters, mutableParameters, source, seq, publishedNodes, path,
                targets);
    }

    Volume withTargets(Map<String, Boolean> newTargets) {
        return new Volume(id, name, capacityBytes, parameters, mutableParameters, source, seq, publishedNodes,
                stagingPath, newTargets);
    }
}
