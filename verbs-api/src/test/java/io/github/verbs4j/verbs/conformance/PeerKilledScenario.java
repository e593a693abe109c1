package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Three JVM processes on the netty fabric: rank 0 (this JVM) holds an RC connection to rank 1 and
 * one to rank 2. Rank 1 is killed with SIGKILL; rank 0's sends to it end with RETRY_EXC_ERR and
 * the rest of its send queue flushes, while the connection to rank 2 keeps moving data. A provider
 * module runs it by naming its provider and how to start a coordinator:
 *
 * <pre>{@code
 * class IbPeerKilledIT extends PeerKilledScenario {
 *   protected String provider() { return "ib"; }
 *   protected FabricKit.Started startCoordinator() { ... }
 * }
 * }</pre>
 */
public abstract class PeerKilledScenario {
  /** @return {@code verbs.provider} */
  protected abstract String provider();

  /** @return a coordinator for the three processes, started in this JVM */
  protected abstract FabricKit.Started startCoordinator();

  /** @return settings added to every rank's configuration (a transport variant); none by default */
  protected Map<String, String> extraSettings() {
    return Map.of();
  }

  private Map<String, String> config(String coordinator, int rank) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", provider());
    m.put("verbs.fabric", "netty");
    m.put("verbs.coordinator", coordinator);
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", "3");
    m.put("verbs.fabric.heartbeat-ms", "100");
    m.putAll(extraSettings());
    return m;
  }

  /** A child rank running {@link EchoPeerMain}, its output in {@code target/kit-peers}. */
  private final class Child implements AutoCloseable {
    final Process process;
    final Path log;

    Child(String coordinator, int rank, String mode) throws IOException {
      Path dir = Path.of(System.getProperty("verbs4j.kit.peerLogDir", "target/kit-peers"));
      Files.createDirectories(dir);
      log = dir.resolve(provider() + "-peer-killed-rank" + rank + ".log");
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("--enable-native-access=ALL-UNNAMED");
      cmd.add("--add-exports");
      cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED"); // Agrona: the fabric's shared-memory rings
      cmd.add("-Xmx256m");
      config(coordinator, rank).forEach((k, v) -> cmd.add("-D" + k + "=" + v));
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add(EchoPeerMain.class.getName());
      cmd.add(mode);
      process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    String output() {
      try {
        return Files.readString(log);
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  @Test
  public void killNineOfAPeerGivesRetryExcErrThenFlushesAndOtherQpsKeepWorking() throws Exception {
    FabricKit.Started coord = startCoordinator();
    try (AutoCloseable stop = coord.closer();
        Child victim = new Child(coord.address(), 1, "idle");
        Child bystander = new Child(coord.address(), 2, "echo");
        Context ctx = Verbs.open(VerbsConfig.of(config(coord.address(), 0)))) {
      ProtectionDomain pd = ctx.allocPd();
      RcEnd toVictim = new RcEnd(ctx, pd, 1).connect();
      RcEnd toBystander = new RcEnd(ctx, pd, 2).connect();
      ctx.job().barrier("connected", RcEnd.WAIT);

      // Both connections work.
      Random rnd = new Random(42);
      echo(toBystander, rnd, 20);
      toVictim.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true)
          .sge(toVictim.mr, RcEnd.sendOffset(0), 64));
      assertEquals(WcStatus.SUCCESS, toVictim.poll(1)[0].status());

      victim.process.destroyForcibly(); // SIGKILL
      assertTrue(victim.process.waitFor(30, TimeUnit.SECONDS), "victim exited");
      for (int i = 0; i < 3; i++) {
        toVictim.qp.postSend(new SendWr().wrId(10 + i).opcode(WrOpcode.SEND).signaled(true)
            .sge(toVictim.mr, RcEnd.sendOffset(i), 128));
      }
      // The first outstanding send exhausts its retries (or gets one timeout once the fabric has
      // reported the peer down); then everything behind it flushes in order.
      WorkCompletion[] wcs = toVictim.poll(3);
      assertEquals(WcStatus.RETRY_EXC_ERR, wcs[0].status(), () -> "first " + wcs[0]);
      assertEquals(10, wcs[0].wrId());
      for (int i = 1; i < 3; i++) {
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs[i].status(), "send " + i);
        assertEquals(10 + i, wcs[i].wrId());
        assertEquals(WcOpcode.SEND, wcs[i].opcode());
      }
      assertEquals(QpState.ERR, toVictim.qp.query().qpState());
      // A receive completion cannot arrive; the posted receives flush.
      WorkCompletion[] flushed = toVictim.poll(RcEnd.SLOTS);
      for (WorkCompletion f : flushed) {
        assertEquals(WcStatus.WR_FLUSH_ERR, f.status());
        assertEquals(WcOpcode.RECV, f.opcode());
      }

      // The survivor's other QP keeps working, byte-exact.
      echo(toBystander, rnd, 200);
      assertEquals(QpState.RTS, toBystander.qp.query().qpState());
      toBystander.qp.postSend(new SendWr().wrId(99).opcode(WrOpcode.SEND).signaled(true)
          .sge(toBystander.mr, RcEnd.sendOffset(0), 0));
      assertEquals(WcStatus.SUCCESS, toBystander.poll(1)[0].status());
      assertTrue(bystander.process.waitFor(60, TimeUnit.SECONDS), () -> "bystander exit; log:\n" + bystander.output());
      assertEquals(0, bystander.process.exitValue(), () -> "bystander exit; log:\n" + bystander.output());
      toVictim.close();
      toBystander.close();
      pd.close();
    }
  }

  /** Sends {@code n} random messages to the echo peer and checks each comes back unchanged. */
  private static void echo(RcEnd end, Random rnd, int n) {
    ByteBuffer buf = end.mr.buffer();
    for (int i = 0; i < n; i++) {
      int len = 1 + rnd.nextInt(RcEnd.SLOT_BYTES);
      byte[] msg = new byte[len];
      rnd.nextBytes(msg);
      int sendAt = (int) RcEnd.sendOffset(i);
      buf.put(sendAt, msg);
      end.qp.postSend(new SendWr().wrId(1000 + i).opcode(WrOpcode.SEND).signaled(true).sge(end.mr, sendAt, len));
      WorkCompletion a = end.poll(1)[0];
      WorkCompletion b = end.poll(1)[0];
      WorkCompletion recv = a.opcode() == WcOpcode.RECV ? a : b;
      WorkCompletion send = recv == a ? b : a;
      assertEquals(WcStatus.SUCCESS, send.status(), () -> "send " + send);
      assertEquals(WcStatus.SUCCESS, recv.status(), () -> "recv " + recv);
      assertEquals(len, recv.byteLen());
      int slot = (int) recv.wrId();
      byte[] got = new byte[len];
      buf.get(slot * RcEnd.SLOT_BYTES, got);
      assertEquals(ByteBuffer.wrap(msg), ByteBuffer.wrap(got), "echo " + i + " of " + len + " bytes");
      end.postRecv(slot);
    }
  }
}
