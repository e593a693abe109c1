package io.github.verbs4j.fabric.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.verbs4j.fabric.testing.Async;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/** The job's TLS key: derived from the secret alone; a peer is trusted exactly when it holds it. */
class JobTlsTest {
  @Test
  void theSameSecretGivesTheSameKeyAndAnotherSecretAnother() {
    JobSecret s = JobSecret.generate();
    JobTls a = JobTls.of(s);
    JobTls b = JobTls.of(JobSecret.parse(s.toHex(), "test"));
    assertArrayEquals(a.jobKey().getEncoded(), b.jobKey().getEncoded());
    assertEquals(a.jobKey(), b.certificate().getPublicKey());
    assertNotEquals(a.jobKey(), JobTls.of(JobSecret.generate()).jobKey());
    assertEquals("EC", a.jobKey().getAlgorithm());
  }

  @Test
  void mutualTlsCompletesWithTheJobKeyOnly() throws Exception {
    JobSecret s = JobSecret.generate();
    assertEquals(42, exchange(JobTls.of(s).jdk(), JobTls.of(JobSecret.parse(s.toHex(), "test")).jdk()));
    // A client of another job: each side refuses the other's certificate.
    assertThrows(Exception.class, () -> exchange(JobTls.of(s).jdk(), JobTls.of(JobSecret.generate()).jdk()));
  }

  /** A server on {@code server} echoes one int + 1 to a client on {@code client}; returns what came back. */
  private static int exchange(SSLContext server, SSLContext client) throws Exception {
    try (SSLServerSocket ss = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0, 1,
        InetAddress.getLoopbackAddress())) {
      ss.setSSLParameters(JobTls.parameters(server));
      CompletableFuture<Void> serving = Async.run(() -> {
        try (SSLSocket c = (SSLSocket) ss.accept()) {
          c.setSoTimeout(10_000);
          DataInputStream in = new DataInputStream(c.getInputStream());
          new DataOutputStream(c.getOutputStream()).writeInt(in.readInt() + 1);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      int got;
      try (SSLSocket c = (SSLSocket) client.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
          ss.getLocalPort())) {
        c.setSSLParameters(JobTls.parameters(client));
        c.setSoTimeout(10_000);
        new DataOutputStream(c.getOutputStream()).writeInt(41);
        got = new DataInputStream(c.getInputStream()).readInt();
        assertEquals("TLSv1.3", c.getSession().getProtocol());
      }
      serving.get(20, TimeUnit.SECONDS);
      return got;
    }
  }
}
