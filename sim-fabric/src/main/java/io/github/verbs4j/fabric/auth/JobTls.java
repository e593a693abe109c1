package io.github.verbs4j.fabric.auth;

import io.github.verbs4j.fabric.FabricException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.util.Date;
import java.util.List;
import javax.crypto.Mac;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Mutual TLS 1.3 for a job, keyed by the job secret alone: every process derives the same P-256
 * key pair from the secret (HMAC-SHA256 of the secret with fixed labels gives the private scalar)
 * and presents a self-signed certificate on it; a peer is trusted exactly when its certificate
 * carries the job's public key. So no certificate is handed out — the secret already is — and a
 * process without the secret can neither complete a handshake as client nor as server. The
 * certificate is made with BouncyCastle (the JDK has no public API for it); its signature differs
 * per process (ECDSA is randomized), which does not matter: the key is what is pinned.
 *
 * <p>TLS adds what the secret's challenge-response ({@link Handshake}, which still runs inside the
 * TLS channel and names the nodes) does not: encryption and per-record integrity between hosts.
 * Thread-safe; build one per process and job.
 */
public final class JobTls {
  private static final String CURVE = "secp256r1";
  private static final List<String> PROTOCOLS = List.of("TLSv1.3");
  private final PrivateKey key;
  private final X509Certificate cert;
  private final PublicKey jobKey;

  private JobTls(PrivateKey key, X509Certificate cert) {
    this.key = key;
    this.cert = cert;
    this.jobKey = cert.getPublicKey();
  }

  /**
   * @param secret the job secret
   * @return the job's TLS material
   * @throws FabricException if the JDK lacks P-256 or ECDSA
   */
  public static JobTls of(JobSecret secret) {
    try {
      X9ECParameters curve = CustomNamedCurves.getByName(CURVE);
      BigInteger n = curve.getN();
      BigInteger d = new BigInteger(1, derive(secret, 64)).mod(n.subtract(BigInteger.ONE)).add(BigInteger.ONE);
      ECPoint q = new FixedPointCombMultiplier().multiply(curve.getG(), d).normalize();
      AlgorithmParameters ap = AlgorithmParameters.getInstance("EC");
      ap.init(new ECGenParameterSpec(CURVE));
      ECParameterSpec spec = ap.getParameterSpec(ECParameterSpec.class);
      KeyFactory kf = KeyFactory.getInstance("EC");
      PrivateKey priv = kf.generatePrivate(new ECPrivateKeySpec(d, spec));
      PublicKey pub = kf.generatePublic(new ECPublicKeySpec(new java.security.spec.ECPoint(
          q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger()), spec));
      X500Name name = new X500Name("CN=verbs4j job");
      // Validity is not what is checked (the key is); a wide window keeps clocks out of it.
      Date from = new Date(0);
      Date to = new Date(4102444800000L); // 2100-01-01
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE, from, to, name, pub);
      X509Certificate cert = new JcaX509CertificateConverter()
          .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(priv)));
      return new JobTls(priv, cert);
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new FabricException("TLS: cannot make the job certificate: " + e, e);
    }
  }

  /** @return {@code bytes} bytes of HMAC(secret, "verbs4j tls key " + i) for i = 1, 2, ... */
  private static byte[] derive(JobSecret secret, int bytes) {
    byte[] out = new byte[bytes];
    int at = 0;
    for (int i = 1; at < bytes; i++) {
      Mac m = secret.mac();
      byte[] block = m.doFinal(("verbs4j tls key " + i).getBytes(StandardCharsets.US_ASCII));
      int n = Math.min(block.length, bytes - at);
      System.arraycopy(block, 0, out, at, n);
      at += n;
    }
    return out;
  }

  /** @return the job's public key (every process's certificate carries it) */
  public PublicKey jobKey() {
    return jobKey;
  }

  /** @return this process's certificate on the job key */
  public X509Certificate certificate() {
    return cert;
  }

  /** @return a Netty context for accepting data connections: TLS 1.3, client certificate required */
  public SslContext nettyServer() {
    try {
      return SslContextBuilder.forServer(key, cert).sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
          .clientAuth(ClientAuth.REQUIRE).trustManager(new Pinned()).build();
    } catch (javax.net.ssl.SSLException e) {
      throw new FabricException("TLS: cannot build the server context: " + e, e);
    }
  }

  /** @return a Netty context for connecting: TLS 1.3, presenting the job certificate */
  public SslContext nettyClient() {
    try {
      return SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS).keyManager(key, cert)
          .trustManager(new Pinned()).build();
    } catch (javax.net.ssl.SSLException e) {
      throw new FabricException("TLS: cannot build the client context: " + e, e);
    }
  }

  /** @return a JDK context for the coordinator's blocking sockets (both sides) */
  public SSLContext jdk() {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      char[] pw = new char[0];
      ks.setKeyEntry("job", key, pw, new X509Certificate[] {cert});
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pw);
      SSLContext c = SSLContext.getInstance("TLSv1.3");
      c.init(kmf.getKeyManagers(), new TrustManager[] {new Pinned()}, null);
      return c;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new FabricException("TLS: cannot build the JDK context: " + e, e);
    }
  }

  /**
   * @param c a context from {@link #jdk()}
   * @return parameters for either side: TLS 1.3 only, a client certificate required
   */
  public static SSLParameters parameters(SSLContext c) {
    SSLParameters p = c.getDefaultSSLParameters();
    p.setProtocols(PROTOCOLS.toArray(new String[0]));
    p.setNeedClientAuth(true);
    return p;
  }

  /** Trusts a peer whose certificate carries the job key, and nothing else. No host names. */
  private final class Pinned extends X509ExtendedTrustManager {
    private void check(X509Certificate[] chain) throws CertificateException {
      if (chain == null || chain.length == 0 || !chain[0].getPublicKey().equals(jobKey)) {
        throw new CertificateException("the peer's certificate does not carry this job's key: it does not hold the "
            + "job secret");
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      check(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[] {cert};
    }
  }
}
