/**
 * The engine runtime both providers share, in the style of Aeron and Agrona: a device's protocol
 * work is a {@link io.github.verbs4j.verbs.spi.runtime.RuntimeAgent} (an Agrona {@code Agent}) whose
 * {@code doWork()} does not know which thread runs it; the runners are outside it — an {@link
 * io.github.verbs4j.verbs.spi.runtime.EngineThread} (one per device, or one for all devices of the
 * JVM) and the application's own posts and polls — and every runner takes the agent's {@link
 * io.github.verbs4j.verbs.spi.runtime.AgentLock} first, so exactly one thread runs it at a time and
 * work found by a try that lost is not lost. {@link io.github.verbs4j.verbs.spi.runtime.Threading}
 * is the one setting ({@code verbs.threading}) that picks the runners.
 */
package io.github.verbs4j.verbs.spi.runtime;
