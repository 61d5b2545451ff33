package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The one Lua script Tenure runs: a batch of lease operations in one call. Its text is a constant; input
 * only ever travels in KEYS and ARGV. Every key it touches is in KEYS (three per operation, same hash tag, so
 * a cluster batch stays in one slot): the lease, the fencing counter, and a short-lived marker that an
 * acquire found the lease held (someone is waiting; it expires 2 s after the last such attempt).
 *
 * <p>ARGV[1] is the notification mode ({@code p} = PUBLISH, {@code s} = SPUBLISH for cluster shards,
 * {@code -} = none); then four arguments per operation: op, owner, ttl ms, aux.
 * <ul>
 * <li>{@code A} acquire: SET NX GET PX (one command grants the lease or names the holder); if granted and aux = 1,
 *     INCR the fence → {1, token, ""}; if held → set the waiting marker, {0, pttl, holder}</li>
 * <li>{@code R} renew: PEXPIRE if the value is ours → {1|0, 0, ""}</li>
 * <li>{@code D} release: MGET of the lease and the waiting marker (one command), DEL if ours, then, if the marker
 *     exists, notify on the lease key's channel (best effort: pcall, a failed notification does not fail the release)
 *     → {1|0, 0, ""}</li>
 * <li>{@code H} hand-off: MGET of the lease and the marker; if ours, SET the new owner (aux = "t:newOwner", t = token
 *     flag) PX ttl, INCR the fence if asked → {1, token, marker exists (0|1)}; else → {0, pttl, holder}</li>
 * <li>{@code K} hand-off keeping the expiry: SET the new owner (aux) XX GET KEEPTTL, one command that checks and
 *     transfers; if the old value was not ours it is put back as it was (value and expiry; XX never creates a key)
 *     → {1, 0, 0}; else → {0, pttl, holder}</li>
 * </ul>
 * So an uncontended acquire runs one command, a release two (three when someone waits elsewhere), a hand-off two (one
 * when it keeps the expiry),
 * besides the script call itself. The result is a flat array of three values per operation.
 */
final class LeaseScript {

    static final String SOURCE = """
            local pub = ARGV[1]
            local out = {}
            local a = 2
            for i = 1, #KEYS, 3 do
              local lk = KEYS[i]
              local op = ARGV[a]
              local owner = ARGV[a + 1]
              local ttl = ARGV[a + 2]
              local aux = ARGV[a + 3]
              a = a + 4
              local n = #out
              if op == 'A' then
                local cur = redis.call('set', lk, owner, 'NX', 'GET', 'PX', ttl)
                if not cur then
                  local tok = 0
                  if aux == '1' then tok = redis.call('incr', KEYS[i + 1]) end
                  out[n + 1] = 1; out[n + 2] = tok; out[n + 3] = ''
                else
                  redis.call('set', KEYS[i + 2], '1', 'PX', 2000)
                  out[n + 1] = 0; out[n + 2] = redis.call('pttl', lk); out[n + 3] = cur
                end
              elseif op == 'R' then
                local ok = 0
                if redis.call('get', lk) == owner then ok = redis.call('pexpire', lk, ttl) end
                out[n + 1] = ok; out[n + 2] = 0; out[n + 3] = ''
              elseif op == 'D' then
                local ok = 0
                local v = redis.call('mget', lk, KEYS[i + 2])
                if v[1] == owner then
                  ok = redis.call('del', lk)
                  if v[2] then
                    if pub == 'p' then redis.pcall('publish', lk, 'r') elseif pub == 's' then redis.pcall('spublish', lk, 'r') end
                  end
                end
                out[n + 1] = ok; out[n + 2] = 0; out[n + 3] = ''
              elseif op == 'H' then
                local v = redis.call('mget', lk, KEYS[i + 2])
                if v[1] == owner then
                  redis.call('set', lk, string.sub(aux, 3), 'PX', ttl)
                  local tok = 0
                  if string.sub(aux, 1, 1) == '1' then tok = redis.call('incr', KEYS[i + 1]) end
                  out[n + 1] = 1; out[n + 2] = tok; out[n + 3] = v[2] and 1 or 0
                else
                  out[n + 1] = 0; out[n + 2] = redis.call('pttl', lk); out[n + 3] = v[1] or ''
                end
              elseif op == 'K' then
                local cur = redis.call('set', lk, aux, 'XX', 'GET', 'KEEPTTL')
                if cur == owner then
                  out[n + 1] = 1; out[n + 2] = 0; out[n + 3] = 0
                else
                  if cur then redis.call('set', lk, cur, 'KEEPTTL') end
                  out[n + 1] = 0; out[n + 2] = redis.call('pttl', lk); out[n + 3] = cur or ''
                end
              else
                return redis.error_reply('tenure: unknown op ' .. tostring(op))
              end
            end
            return out
            """;

    static final String SHA = sha1(SOURCE);

    private LeaseScript() {
    }

    private static String sha1(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(40);
            for (byte b : d) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the JVM spec", e);
        }
    }
}
