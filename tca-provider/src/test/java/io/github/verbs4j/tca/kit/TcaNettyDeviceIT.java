package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DeviceConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeviceConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyDeviceIT extends DeviceConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
