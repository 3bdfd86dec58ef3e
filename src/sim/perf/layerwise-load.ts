/**
 * How long a prefill GPU waits for its batch's prefix when the prefix streams
 * in layer by layer ahead of the forward (mechanics fetchOverlap layerwise).
 *
 * SGLang HiCache's load-back (sgl-project/sglang
 * python/sglang/srt/managers/cache_controller.py): `load` queues one
 * operation per request whose prefix is in host memory; `start_loading`
 * merges the batch's queued operations into one host-to-device transfer
 * (`CacheOperation.merge_ops`) on the controller's side stream, recording an
 * event per layer (`LayerLoadingEvent`); the forward waits on layer i's event
 * before layer i's attention (`LayerDoneCounter.wait_until`). So the batch's
 * loads take the sum of their bytes over the link, and the GPU idles only
 * while layer i's load is still running when layer i is due.
 *
 * With the load L and the first iteration's compute C spread evenly over
 * n layers, layer i's load ends at (i+1)L/n and its compute can start at
 * max(end of layer i-1's compute, that). When L <= C the GPU waits for the
 * first layer's load only, L/n; when L > C the load paces the forward and the
 * last layer starts at L, so the iteration ends at L + C/n: a wait of
 * L - C(n-1)/n. Both cases are max(L/n, L - C(n-1)/n). Not modelled: the SMs
 * the copy kernel takes from the forward (2 to 4 of 152 on GB300, sglang pull
 * request 40278).
 */
export function layerwiseWait(loadSeconds: number, computeSeconds: number, layers: number): number {
  if (loadSeconds <= 0) return 0;
  const n = Math.max(1, layers);
  return Math.max(loadSeconds / n, loadSeconds - (computeSeconds * (n - 1)) / n);
}
