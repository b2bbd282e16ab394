package io.rdma4j.soft.stat;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.ImmutableDescriptor;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import java.util.List;

/**
 * A device's counters as a JMX MBean, one read-only long attribute per counter, for applications
 * that already export their metrics through JMX (or Micrometer's JMX registry). Registered as
 * {@code io.rdma4j:type=SoftDevice,device=NAME,address=ADDRESS}. An attribute is named as its counter is; its
 * descriptor carries the counter's {@code id} and {@code group} (device, link, cm), which no later version
 * changes, and its attributes come in id order.
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
        final List<SoftCounter> all = SoftCounter.inIdOrder();
        final MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[all.size()];
        for (int i = 0; i < attributes.length; i++)
        {
            final SoftCounter counter = all.get(i);
            attributes[i] = new MBeanAttributeInfo(counter.counterName(), "long",
                counter.group().groupName() + " counter " + counter.counterName() + ", id " + counter.id(), true,
                false, false, new ImmutableDescriptor("id=" + counter.id(), "group=" + counter.group().groupName()));
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
        final SoftCounter counter = SoftCounter.byName(name);
        if (counter == null)
        {
            throw new AttributeNotFoundException("no counter named " + name);
        }
        return counters.get(counter);
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
