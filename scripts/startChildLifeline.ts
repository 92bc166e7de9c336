/**
 * Preloaded into every service the supervisor starts (`node --import`): the IPC channel to
 * the supervisor is the service's lifeline. When it closes (the supervisor died, even by
 * SIGKILL), the service stops the way a SIGTERM stops it, instead of running on unsupervised.
 */
if (process.channel) {
  // The channel must not keep a service alive that would otherwise end.
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // A closed terminal sends SIGHUP to the whole group, which would end the service on the
  // spot; the supervisor stops it in order instead (it sends SIGTERM).
  process.on('SIGHUP', () => undefined);
}
