package dev.tenure.valkey;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The one Lua script Tenure runs: a batch of lease operations in one call. Its text is a constant; input
 * only ever travels in KEYS and ARGV. Every key it touches is in KEYS (four per operation, same hash tag, so
 * a cluster batch stays in one slot): the lease, the fencing counter, a short-lived marker that an acquire found
 * the lease held (someone is waiting; it expires 2 s after the last such attempt), and the queue of waiting
 * processes (a list of engine ids, oldest first).
 *
 * <p>ARGV[1] is the notification mode ({@code p} = PUBLISH, {@code s} = SPUBLISH for cluster shards,
 * {@code -} = none); then four arguments per operation: op, owner, ttl ms, aux.
 * <ul>
 * <li>{@code A} acquire (aux = token flag, then {@code ":engine"} for a waiting process): SET NX GET PX (one command
 *     grants the lease or names the holder); a held value {@code q:engine} is a turn reserved for that engine, which
 *     takes it with SET PX, as does anyone when the value is a
 *     fire's marker {@code d:fireKey} (see {@code C}); if granted and the flag is 1, INCR the fence → {1, token, ""}; if held → set the waiting
 *     marker, queue the engine (LPOS, RPUSH if absent, PEXPIRE), {0, pttl, holder}</li>
 * <li>{@code F} acquire for a fire (aux = token flag, {@code ":engine"} or {@code ":"}, then {@code ":fireKey"}): as
 *     {@code A}, but a value {@code d:fireKey} (the marker of {@code C}) answers done → {2, pttl, ""} and changes
 *     nothing</li>
 * <li>{@code C} release after the fire's completion (ttl = how long the marker lasts; aux = fire key): MGET of the lease
 *     and the waiting marker; if ours, SET {@code d:fireKey} PX ttl, and if someone waits notify {@code r} on the lease
 *     key's channel → {1|0, 0, ""}. The queue is not served: a marker is no holder</li>
 * <li>{@code R} renew: PEXPIRE if the value is ours → {1|0, 0, ""}</li>
 * <li>{@code D} release (ttl = how long a reserved turn lasts; aux = "" or the engine to queue again): MGET of the
 *     lease and the waiting marker (one command); if ours and nobody waits, DEL. If someone waits: take aux out of
 *     the queue, pop the next engine and replace the lease by its reserved turn {@code q:engine} (PX ttl), queue aux
 *     again at the tail, and notify that engine alone on its turn channel ({@code <lease key>:t:<engine>}); with an
 *     empty queue DEL and notify {@code r} on the lease key's channel (notifications are best effort: pcall)
 *     → {1|0, 1 if passed to another engine, ""}</li>
 * <li>{@code H} hand-off: MGET of the lease and the marker; if ours, SET the new owner (aux = "t:newOwner", t = token
 *     flag) PX ttl, INCR the fence if asked → {1, token, marker exists (0|1)}; else → {0, pttl, holder}</li>
 * <li>{@code K} hand-off keeping the expiry: SET the new owner (aux) XX GET KEEPTTL, one command that checks and
 *     transfers; if the old value was not ours it is put back as it was (value and expiry; XX never creates a key)
 *     → {1, 0, 0}; else → {0, pttl, holder}</li>
 * <li>{@code L} leave the queue (aux = engine, ttl as for D): LREM; if the lease is the engine's reserved turn, pass it
 *     on as a release does → {1, 0, ""}</li>
 * </ul>
 * A lone release has a short form of its own: two keys (the lease and the marker) and one argument (the owner). It
 * runs the same MGET; if the lease is not ours it answers 0; if nobody waits it deletes the lease and answers 1; if
 * someone waits it changes nothing and answers 2, and the client sends the release again in the batch form above,
 * which passes the key on. So the common release costs the server two keys and one argument instead of four and five,
 * and the client one integer instead of an array of three values.
 *
 * <p>So an uncontended acquire runs one command, a release two, a hand-off two (one when it keeps the expiry), besides
 * the script call itself; a contended release that passes the key to the next process about seven. Queue commands run
 * under pcall: a user whose ACL lacks the list commands gets the behaviour without the queue (waiters race). The
 * result is a flat array of three values per operation.
 */
final class LeaseScript {

    static final String SOURCE = """
            if #KEYS == 2 then
              local v = redis.call('mget', KEYS[1], KEYS[2])
              if v[1] ~= ARGV[1] then return 0 end
              if v[2] then return 2 end
              redis.call('del', KEYS[1])
              return 1
            end
            local pub = ARGV[1]
            local out = {}
            local a = 2
            local function notify(lk, msg)
              if pub == 'p' then redis.pcall('publish', lk, msg) elseif pub == 's' then redis.pcall('spublish', lk, msg) end
            end
            local function pass(lk, wk, qk, me, hold)
              if me ~= '' then redis.pcall('lrem', qk, 0, me) end
              local nxt = redis.pcall('lpop', qk)
              if type(nxt) == 'string' then
                redis.call('set', lk, 'q:' .. nxt, 'PX', hold)
                if me ~= '' then
                  redis.pcall('rpush', qk, me)
                  redis.pcall('pexpire', qk, 60000)
                  redis.call('set', wk, '1', 'PX', 2000)
                end
                notify(lk .. ':t:' .. nxt, 't')
                return 1
              end
              redis.call('del', lk)
              notify(lk, 'r')
              return 0
            end
            for i = 1, #KEYS, 4 do
              local lk = KEYS[i]
              local op = ARGV[a]
              local owner = ARGV[a + 1]
              local ttl = ARGV[a + 2]
              local aux = ARGV[a + 3]
              a = a + 4
              local n = #out
              if op == 'A' or op == 'F' then
                local me = string.sub(aux, 3)
                local done = nil
                if op == 'F' then
                  local p = string.find(me, ':', 1, true)
                  done = 'd:' .. string.sub(me, p + 1)
                  me = string.sub(me, 1, p - 1)
                end
                local cur = redis.call('set', lk, owner, 'NX', 'GET', 'PX', ttl)
                if cur and cur ~= done and ((me ~= '' and cur == 'q:' .. me) or string.sub(cur, 1, 2) == 'd:') then
                  redis.call('set', lk, owner, 'PX', ttl)
                  cur = false
                end
                if cur and cur == done then
                  out[n + 1] = 2; out[n + 2] = redis.call('pttl', lk); out[n + 3] = ''
                elseif not cur then
                  local tok = 0
                  if string.sub(aux, 1, 1) == '1' then tok = redis.call('incr', KEYS[i + 1]) end
                  out[n + 1] = 1; out[n + 2] = tok; out[n + 3] = ''
                else
                  redis.call('set', KEYS[i + 2], '1', 'PX', 2000)
                  if me ~= '' then
                    if redis.pcall('lpos', KEYS[i + 3], me) == false then redis.pcall('rpush', KEYS[i + 3], me) end
                    redis.pcall('pexpire', KEYS[i + 3], 60000)
                  end
                  out[n + 1] = 0; out[n + 2] = redis.call('pttl', lk); out[n + 3] = cur
                end
              elseif op == 'C' then
                local ok = 0
                local v = redis.call('mget', lk, KEYS[i + 2])
                if v[1] == owner then
                  ok = 1
                  redis.call('set', lk, 'd:' .. aux, 'PX', ttl)
                  if v[2] then notify(lk, 'r') end
                end
                out[n + 1] = ok; out[n + 2] = 0; out[n + 3] = ''
              elseif op == 'R' then
                local ok = 0
                if redis.call('get', lk) == owner then ok = redis.call('pexpire', lk, ttl) end
                out[n + 1] = ok; out[n + 2] = 0; out[n + 3] = ''
              elseif op == 'D' then
                local ok = 0
                local passed = 0
                local v = redis.call('mget', lk, KEYS[i + 2])
                if v[1] == owner then
                  ok = 1
                  if v[2] then passed = pass(lk, KEYS[i + 2], KEYS[i + 3], aux, ttl) else redis.call('del', lk) end
                end
                out[n + 1] = ok; out[n + 2] = passed; out[n + 3] = ''
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
              elseif op == 'L' then
                redis.pcall('lrem', KEYS[i + 3], 0, aux)
                if redis.call('get', lk) == 'q:' .. aux then pass(lk, KEYS[i + 2], KEYS[i + 3], '', ttl) end
                out[n + 1] = 1; out[n + 2] = 0; out[n + 3] = ''
              else
                return redis.error_reply('tenure: unknown op ' .. tostring(op))
              end
            end
            return out
            """;

    static final String SHA = sha1(SOURCE);

    private LeaseScript() {}

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
