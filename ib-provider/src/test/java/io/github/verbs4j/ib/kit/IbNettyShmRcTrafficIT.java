package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link RcTrafficConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, the data
 * frames in shared-memory rings ({@code verbs.fabric.shm=required}).
 */
public class IbNettyShmRcTrafficIT extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_SHM;
  }
}
