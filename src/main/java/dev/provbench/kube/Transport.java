package dev.provbench.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.utils.HttpClientUtils;
import io.fabric8.kubernetes.client.vertx.VertxHttpClient;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientBuilder;
import io.netty.handler.ssl.OpenSsl;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.ProxyOptions;
import io.vertx.core.net.ProxyType;
import io.vertx.core.net.TrustOptions;
import io.vertx.ext.web.client.WebClientOptions;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import javax.net.ssl.X509KeyManager;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * How provbench's clients reach kube-apiserver: fabric8's Vert.x client, with the two choices fabric8 7.5.2 fixes
 * (HTTP/1.1 with ALPN off, and the JDK's TLS engine — its builder offers no hook, fabric8 issue #7252):
 * <ul>
 * <li>{@code provbench.kube.tls}: {@code openssl} (default) — BoringSSL through netty-tcnative, whose AES-GCM and
 * handshakes are native code — or {@code jdk}, the JDK's engine, which under the tool's C1-only JIT runs AES, GHASH
 * and the handshakes' BigInteger arithmetic without intrinsics (a third of the event loop's steady work, and the
 * hottest methods of a run: issue 27's profile, docs/benchmarks.md). Where netty-tcnative cannot load (another
 * platform), {@code openssl} falls back to the JDK's engine and says so in the log.</li>
 * <li>{@code provbench.kube.http2}: {@code false} (default) — HTTP/1.1, one connection per concurrent request — or
 * {@code true}: HTTP/2 through ALPN, every request and watch multiplexed on one connection, to an https server
 * (the {@code --local} API is plain HTTP and stays on HTTP/1.1). fabric8's {@code Config.http2Disable} still forces
 * HTTP/1.1.</li>
 * </ul>
 * Everything above the transport — interceptors (the limiter), informers, watches, retries — is fabric8's own.
 */
public record Transport(Tls tls, boolean http2) {
    private static final Logger LOG = Logger.getLogger(Transport.class);
    /** fabric8's own limits for its Vert.x client (VertxHttpClientBuilder), kept. */
    private static final int MAX_CONNECTIONS = 8192;

    public enum Tls { OPENSSL, JDK }

    /** From {@code provbench.kube.tls} and {@code provbench.kube.http2} (system properties, environment, config). */
    public static Transport configured() {
        var config = ConfigProvider.getConfig();
        return of(config.getOptionalValue("provbench.kube.tls", String.class).orElse("openssl"),
                config.getOptionalValue("provbench.kube.http2", Boolean.class).orElse(false));
    }

    static Transport of(String tls, boolean http2) {
        Tls t = switch (tls.trim().toLowerCase(Locale.ROOT)) {
            case "openssl" -> Tls.OPENSSL;
            case "jdk" -> Tls.JDK;
            default -> throw new IllegalArgumentException("provbench.kube.tls must be openssl or jdk");
        };
        return new Transport(t, http2);
    }

    /** The engine actually used: {@link Tls#JDK} when netty-tcnative is not available here. */
    public Tls effectiveTls() {
        return tls == Tls.OPENSSL && !OpenSsl.isAvailable() ? Tls.JDK : tls;
    }

    /** For the log: "BoringSSL (netty-tcnative), HTTP/1.1". */
    public String describe() {
        return (effectiveTls() == Tls.OPENSSL ? OpenSsl.versionString() + " (netty-tcnative)" : "JDK TLS")
                + ", " + (http2 ? "HTTP/2" : "HTTP/1.1");
    }

    /** A fabric8 HTTP client factory that builds its clients this way. */
    public HttpClient.Factory factory() {
        if (tls == Tls.OPENSSL && !OpenSsl.isAvailable()) {
            LOG.warnf("BoringSSL (netty-tcnative) is not available here (%s): the JDK's TLS engine is used",
                    OpenSsl.unavailabilityCause() == null ? "unknown cause"
                            : OpenSsl.unavailabilityCause().getClass().getSimpleName());
        }
        return new Factory(this);
    }

    private static final class Factory implements HttpClient.Factory {
        private final Transport transport;

        Factory(Transport transport) {
            this.transport = transport;
        }

        @Override
        public VertxHttpClientBuilder<Factory> newBuilder() {
            return builder(false);
        }

        /** HTTP/2 only to an https server: over plain HTTP (the --local API) it would take an h2c upgrade. */
        @Override
        public HttpClient.Builder newBuilder(Config config) {
            Builder b = builder(transport.http2 && config.getMasterUrl() != null
                    && config.getMasterUrl().startsWith("https:"));
            HttpClientUtils.applyCommonConfiguration(config, b, this);
            return b;
        }

        private Builder builder(boolean http2) {
            Vertx shared = applicationVertx();
            return shared != null ? new Builder(this, shared, false, http2)
                    : new Builder(this, ownVertx(), true, http2);
        }
    }

    /** Quarkus' own Vert.x when this runs inside the application (as Quarkus' client factory uses it), else null. */
    public static Vertx applicationVertx() {
        ArcContainer c = Arc.container();
        if (c == null || !c.isRunning()) {
            return null;
        }
        var h = c.instance(Vertx.class);
        return h.isAvailable() ? h.get() : null;
    }

    /** Outside the application (plain unit tests): a Vert.x of a client's own, which closes it with itself. */
    public static Vertx ownVertx() {
        return Vertx.vertx(new VertxOptions().setUseDaemonThread(true).setFileSystemOptions(
                new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false)));
    }

    /**
     * {@code VertxHttpClient}'s constructor is package-private and fabric8 7.5.2's builder has no hook for the options
     * (#7252), so the client over our options is made through that constructor by reflection. (A class in fabric8's
     * package cannot do it: under {@code @QuarkusTest} the application's classes and the libraries' are defined by
     * different class loaders, so they are not one runtime package.)
     */
    private static final Constructor<?> CLIENT_CONSTRUCTOR;

    static {
        try {
            CLIENT_CONSTRUCTOR = VertxHttpClient.class.getDeclaredConstructor(VertxHttpClientBuilder.class,
                    AtomicBoolean.class, io.vertx.core.http.HttpClient.class, boolean.class);
            CLIENT_CONSTRUCTOR.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError("fabric8's VertxHttpClient has no (builder, closed, client, "
                    + "closeVertx) constructor: a fabric8 other than 7.5.2?");
        }
    }

    @SuppressWarnings("unchecked")
    private static VertxHttpClient<Factory> wrap(Builder builder, io.vertx.core.http.HttpClient client,
            boolean closeVertx) {
        try {
            return (VertxHttpClient<Factory>) CLIENT_CONSTRUCTOR.newInstance(builder, new AtomicBoolean(), client,
                    closeVertx);
        } catch (InvocationTargetException e) {
            client.close();
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            client.close();
            throw new IllegalStateException("cannot make fabric8's Vert.x client: " + e.getClass().getSimpleName());
        }
    }

    private static final class Builder extends VertxHttpClientBuilder<Factory> {
        private final Vertx vertx;
        private final boolean ownsVertx;
        private final boolean http2;

        Builder(Factory factory, Vertx vertx, boolean ownsVertx, boolean http2) {
            super(factory, vertx);
            this.vertx = vertx;
            this.ownsVertx = ownsVertx;
            this.http2 = http2;
        }

        @Override
        public VertxHttpClient<Factory> build() {
            if (client != null) {
                return super.build(); // a derived client shares its parent's connections
            }
            return wrap(this, vertx.createHttpClient(options()), ownsVertx);
        }

        /** fabric8's options (VertxHttpClientBuilder.build), with the transport's engine and protocol. */
        private WebClientOptions options() {
            Transport t = clientFactory.transport;
            WebClientOptions o = new WebClientOptions()
                    .setMaxPoolSize(MAX_CONNECTIONS)
                    .setMaxWebSockets(MAX_CONNECTIONS)
                    .setIdleTimeoutUnit(TimeUnit.SECONDS)
                    .setMaxWebSocketFrameSize(Integer.MAX_VALUE)
                    .setMaxWebSocketMessageSize(Integer.MAX_VALUE);
            if (connectTimeout != null) {
                o.setConnectTimeout((int) connectTimeout.toMillis());
            }
            o.setFollowRedirects(followRedirects);
            if (proxyType != HttpClient.ProxyType.DIRECT && proxyAddress != null) {
                ProxyOptions p = new ProxyOptions().setHost(proxyAddress.getHostName()).setPort(proxyAddress.getPort())
                        .setType(switch (proxyType) {
                            case HTTP -> ProxyType.HTTP;
                            case SOCKS4 -> ProxyType.SOCKS4;
                            case SOCKS5 -> ProxyType.SOCKS5;
                            default -> throw new KubernetesClientException("Unsupported proxy type");
                        });
                String[] userPassword = HttpClientUtils.decodeBasicCredentials(proxyAuthorization);
                if (userPassword != null) {
                    p.setUsername(userPassword[0]).setPassword(userPassword[1]);
                } else {
                    addProxyAuthInterceptor();
                }
                o.setProxyOptions(p);
            }
            if (tlsVersions != null && tlsVersions.length > 0) {
                o.setEnabledSecureTransportProtocols(Arrays.stream(tlsVersions).map(TlsVersion::javaName)
                        .collect(Collectors.toSet()));
            }
            boolean http2 = this.http2 && !preferHttp11;
            o.setProtocolVersion(http2 ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1);
            if (sslContext != null) {
                o.setSsl(true).setUseAlpn(http2);
                o.setSslEngineOptions(t.effectiveTls() == Tls.OPENSSL ? new OpenSSLEngineOptions()
                        : new JdkSSLEngineOptions());
                // the key and trust material fabric8 read from the kubeconfig (client certificate, CA; or none)
                if (keyManagers != null) {
                    Arrays.stream(keyManagers).filter(X509KeyManager.class::isInstance).findFirst()
                            .ifPresent(k -> o.setKeyCertOptions(KeyCertOptions.wrap((X509KeyManager) k)));
                }
                if (trustManagers != null && trustManagers.length > 0) {
                    o.setTrustOptions(TrustOptions.wrap(trustManagers[0]));
                }
            }
            return o;
        }

        @Override
        protected VertxHttpClientBuilder<Factory> newInstance(Factory factory) {
            return new Builder(factory, vertx, ownsVertx, http2);
        }
    }
}
