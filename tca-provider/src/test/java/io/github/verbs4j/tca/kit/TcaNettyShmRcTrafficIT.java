package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link RcTrafficConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric; the
 * frames between the JVMs go through shared-memory rings ({@code verbs.fabric.shm=required}).
 */
public class TcaNettyShmRcTrafficIT extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC_SHM;
  }
}
