package io.github.verbs4j.examples.himeno;

import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScratchHimenoTest {
  @Test
  @org.junit.jupiter.api.Timeout(3000)
  void run() throws Exception {
    for (String provider : new String[] {"ib", "tca"}) {
      for (int bytes : new int[] {8, 2048, 8192, 16384, 65536, 262144}) {
        Map<String, String> s = new HashMap<>(Map.of("verbs.time", "modelled"));
        if (provider.equals("ib")) s.put("verbs.ib.profile", "connectx3-qdr");
        List<Double> r = InJvmJob.on(provider, 2, s, ctx -> {
          try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
            ByteBuffer buf = comm.allocate(bytes);
            int peer = 1 - comm.rank();
            long start = 0;
            int iters = 50;
            for (int i = -5; i < iters; i++) {
              if (i == 0) start = comm.nowNanos();
              if (comm.rank() == 0) { comm.send(buf.clear(), peer, 1); comm.recv(buf.clear(), peer, 1); }
              else { comm.recv(buf.clear(), peer, 1); comm.send(buf.clear(), peer, 1); }
            }
            return (comm.nowNanos() - start) / 2.0 / iters / 1000;
          }
        });
        System.out.printf("SCRATCH %s %d B one-way %.2f us%n", provider, bytes, r.get(0));
      }
    }
  }
}
