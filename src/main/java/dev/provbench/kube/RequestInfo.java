package dev.provbench.kube;

import java.net.URI;
import java.util.regex.Pattern;

/**
 * The verb and resource of a Kubernetes API request, named as the apiserver's audit log names them
 * (get, list, watch, create, update, patch, delete, deletecollection).
 */
public record RequestInfo(String verb, String resource) {
    // compiled once: every request the tool sends passes here (String.replaceAll/matches compile on each call)
    private static final Pattern EDGE_SLASHES = Pattern.compile("^/+|/+$");
    private static final Pattern WATCH = Pattern.compile("(^|.*&)watch=(true|1)(&.*|$)");

    public static RequestInfo of(String method, URI uri) {
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        String[] parts = EDGE_SLASHES.matcher(path).replaceAll("").split("/");
        int i;
        if (parts.length > 0 && parts[0].equals("api")) {
            i = 2; // api/v1/...
        } else if (parts.length > 0 && parts[0].equals("apis")) {
            i = 3; // apis/group/version/...
        } else {
            return new RequestInfo(method.toLowerCase(java.util.Locale.ROOT), "nonresource:" + path);
        }
        if (parts.length > i + 1 && parts[i].equals("namespaces") && parts.length > i + 2) {
            i += 2; // namespaces/{ns}/{resource}
        }
        String resource = parts.length > i ? parts[i] : "";
        boolean named = parts.length > i + 1;
        if (parts.length > i + 2) {
            resource = resource + "/" + parts[i + 2]; // subresource, e.g. persistentvolumeclaims/status
        }
        if (resource.isEmpty()) {
            resource = "discovery";
        }
        String verb = switch (method.toUpperCase(java.util.Locale.ROOT)) {
            case "GET" -> WATCH.matcher(query).matches() ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method.toLowerCase(java.util.Locale.ROOT);
        };
        return new RequestInfo(verb, resource);
    }

    public String key() {
        return verb + " " + resource;
    }
}
