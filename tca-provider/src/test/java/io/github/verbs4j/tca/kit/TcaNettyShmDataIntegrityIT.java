package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link DataIntegrityConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric; the
 * frames between the JVMs go through shared-memory rings ({@code verbs.fabric.shm=required}).
 */
public class TcaNettyShmDataIntegrityIT extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC_SHM;
  }
}
