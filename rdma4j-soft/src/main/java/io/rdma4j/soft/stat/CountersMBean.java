package io.rdma4j.soft.stat;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * A device's counters as a JMX MBean, one read-only long attribute per counter, for applications
 * that already export their metrics through JMX (or Micrometer's JMX registry). Registered as
 * {@code io.rdma4j:type=SoftDevice,device=NAME,address=ADDRESS}.
 */
public final class CountersMBean implements DynamicMBean
{
    private final Counters counters;
    private final MBeanInfo info;

    /**
     * @param counters the device's counters.
     * @param device   its name.
     */
    public CountersMBean(final Counters counters, final String device)
    {
        this.counters = counters;
        final SoftCounter[] all = SoftCounter.values();
        final MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[all.length];
        for (int i = 0; i < all.length; i++)
        {
            attributes[i] = new MBeanAttributeInfo(all[i].counterName(), "long", all[i].counterName(), true, false,
                false);
        }
        info = new MBeanInfo(CountersMBean.class.getName(), "the counters of rdma4j software device " + device,
            attributes, null, null, null);
    }

    /**
     * @param device  the device's name.
     * @param address its address.
     * @return the name it registers under.
     * @throws MalformedObjectNameException never for a device's name and address.
     */
    public static ObjectName objectName(final String device, final String address) throws MalformedObjectNameException
    {
        return new ObjectName("io.rdma4j:type=SoftDevice,device=" + ObjectName.quote(device) + ",address=" +
            ObjectName.quote(address));
    }

    @Override
    public Object getAttribute(final String name) throws AttributeNotFoundException
    {
        for (final SoftCounter counter : SoftCounter.values())
        {
            if (counter.counterName().equals(name))
            {
                return counters.get(counter);
            }
        }
        throw new AttributeNotFoundException("no counter named " + name);
    }

    @Override
    public AttributeList getAttributes(final String[] names)
    {
        final AttributeList list = new AttributeList();
        for (final String name : names)
        {
            try
            {
                list.add(new Attribute(name, getAttribute(name)));
            }
            catch (final AttributeNotFoundException ex)
            {
                // JMX leaves unknown names out of the list
            }
        }
        return list;
    }

    @Override
    public void setAttribute(final Attribute attribute) throws AttributeNotFoundException
    {
        throw new AttributeNotFoundException("counters are read-only: " + attribute.getName());
    }

    @Override
    public AttributeList setAttributes(final AttributeList attributes)
    {
        return new AttributeList();
    }

    @Override
    public Object invoke(final String action, final Object[] params, final String[] signature)
    {
        throw new UnsupportedOperationException("the counters have no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo()
    {
        return info;
    }
}
