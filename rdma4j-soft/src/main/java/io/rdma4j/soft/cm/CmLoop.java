package io.rdma4j.soft.cm;

import io.rdma4j.soft.engine.WaitingIdleStrategy;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The connection manager's thread, as an Agrona agent run by an {@link AgentRunner} like the device's progress
 * thread: each duty cycle runs the work that is due (timers first, then completions, then received MADs, in that
 * order, a bounded number per cycle), and the idle strategy waits on a condition until work arrives or the
 * next timer falls due. Tasks run one at a time on this thread, never under the lock.
 *
 * @param <M> what a received MAD is, dispatched by the manager.
 */
final class CmLoop<M> implements Agent
{
    /** The longest the thread sleeps without looking at its timers. */
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Tasks per duty cycle: the runner's loop comes round between batches, as it does for the device. */
    private static final int TASKS_PER_CYCLE = 64;

    private final CmClock clock;
    private final int madCapacity;
    private final Consumer<M> dispatcher;
    private final Runnable onTaskFailed;
    private final System.Logger log;
    /** Guards the queues, the timers and the idle flag; never held while a task runs. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    private final Condition wentIdle = lock.newCondition();
    private final ArrayDeque<M> mads = new ArrayDeque<>();
    private final ArrayDeque<Runnable> completions = new ArrayDeque<>();
    private final PriorityQueue<CmTimer> timers = new PriorityQueue<>();
    private final AgentRunner runner;
    private final Thread thread;
    private int madHighWater;
    private long timerSequence;
    private boolean idle;
    private boolean stopped;

    /**
     * @param clock        the time timers run by.
     * @param madCapacity  MADs that may wait; {@link #offerMad} refuses more.
     * @param dispatcher   handles a received MAD, on this thread.
     * @param onTaskFailed counts a task that threw (the task is logged and dropped; the thread goes on).
     * @param idleStrategy what the thread does after a cycle that found nothing due; null waits on the work
     *                     condition until work arrives or the next timer.
     * @param name         the thread's name.
     * @param log          where a failed task is logged.
     */
    CmLoop(
        final CmClock clock, final int madCapacity, final Consumer<M> dispatcher, final Runnable onTaskFailed,
        final IdleStrategy idleStrategy, final String name, final System.Logger log)
    {
        this.clock = clock;
        this.madCapacity = madCapacity;
        this.dispatcher = dispatcher;
        this.onTaskFailed = onTaskFailed;
        this.log = log;
        this.runner = new AgentRunner(idleStrategy != null ? idleStrategy : new AwaitWork(), this::onError, null, this);
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(runner);
        clock.onAdvance(this::wake);
    }

    void start()
    {
        thread.start();
    }

    /**
     * Queue a received MAD, unless {@code madCapacity} wait already.
     *
     * @return false if the queue is full and the MAD was not taken.
     */
    boolean offerMad(final M mad)
    {
        lock.lock();
        try
        {
            if (mads.size() >= madCapacity)
            {
                return false;
            }
            mads.add(mad);
            madHighWater = Math.max(madHighWater, mads.size());
            workArrived.signal();
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return the most MADs that ever waited at once.
     */
    int madHighWater()
    {
        lock.lock();
        try
        {
            return madHighWater;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Run a completion on this thread, after every completion submitted before.
     */
    void later(final Runnable completion)
    {
        lock.lock();
        try
        {
            completions.add(completion);
            workArrived.signal();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Run a task on this thread once the clock has moved on by {@code delayNanos}.
     *
     * @return the timer, to cancel.
     */
    CmTimer schedule(final Runnable task, final long delayNanos)
    {
        lock.lock();
        try
        {
            final CmTimer timer = new CmTimer(clock.nanoTime() + delayNanos, timerSequence++, task);
            timers.add(timer);
            workArrived.signal();
            return timer;
        }
        finally
        {
            lock.unlock();
        }
    }

    void cancel(final CmTimer timer)
    {
        lock.lock();
        try
        {
            timers.remove(timer);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * For tests: wait until the thread has nothing queued and no timer due, and sleeps.
     */
    void awaitIdle() throws InterruptedException
    {
        lock.lock();
        try
        {
            workArrived.signal();
            idle = false;
            while (!idle || hasWork())
            {
                wentIdle.await();
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * For tests: end the thread once it has finished its current task; what is queued is dropped.
     */
    void stop()
    {
        lock.lock();
        try
        {
            stopped = true;
            workArrived.signal();
        }
        finally
        {
            lock.unlock();
        }
        if (Thread.currentThread() != thread)
        {
            runner.close();
        }
    }

    private void wake()
    {
        lock.lock();
        try
        {
            idle = false;
            workArrived.signal();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public int doWork()
    {
        int done = 0;
        while (done < TASKS_PER_CYCLE)
        {
            final Runnable task;
            lock.lock();
            try
            {
                task = stopped ? null : nextTask();
            }
            finally
            {
                lock.unlock();
            }
            if (task == null)
            {
                break;
            }
            try
            {
                task.run();
            }
            catch (final RuntimeException ex)
            {
                // a bug must cost one MAD or one timer, not the CM
                onError(ex);
            }
            done++;
        }
        return done;
    }

    @Override
    public String roleName()
    {
        return thread.getName();
    }

    private void onError(final Throwable ex)
    {
        onTaskFailed.run();
        log.log(System.Logger.Level.ERROR, "connection manager task failed", ex);
    }

    /** Lock held: due timers first, then completions, then MADs; null when nothing is due. */
    private Runnable nextTask()
    {
        final CmTimer due = dueTimer();
        if (due != null)
        {
            timers.poll();
            return due.task;
        }
        final Runnable completion = completions.poll();
        if (completion != null)
        {
            return completion;
        }
        final M mad = mads.poll();
        return mad == null ? null : () -> dispatcher.accept(mad);
    }

    /** Lock held. */
    private boolean hasWork()
    {
        return !mads.isEmpty() || !completions.isEmpty() || dueTimer() != null;
    }

    /** Lock held. */
    private CmTimer dueTimer()
    {
        final CmTimer first = timers.peek();
        return first != null && first.deadline - clock.nanoTime() <= 0 ? first : null;
    }

    /**
     * The default idle strategy: after an empty cycle, sleep on the work condition until work arrives (every
     * producer signals it under the lock, so checking for work under the lock first loses no wake-up) or the
     * next timer falls due, at most {@link #MAX_IDLE_NANOS}.
     */
    private final class AwaitWork extends WaitingIdleStrategy
    {
        @Override
        public void idle()
        {
            lock.lock();
            try
            {
                if (stopped || hasWork())
                {
                    return;
                }
                final CmTimer first = timers.peek();
                final long wait = first == null ? MAX_IDLE_NANOS :
                    Math.min(MAX_IDLE_NANOS, first.deadline - clock.nanoTime());
                idle = true;
                wentIdle.signalAll();
                workArrived.awaitNanos(Math.max(wait, 1));
            }
            catch (final InterruptedException ex)
            {
                // only the runner interrupts, when closing, after it has stopped the loop: look again and end
            }
            finally
            {
                lock.unlock();
            }
        }

        @Override
        public String alias()
        {
            return "cm-condition";
        }
    }
}
