package main

// Moving a host link into a pod's network namespace and back, as the
// upstream plugin does it (its host-device.go, adapted there from the CNI
// host-device plugin): the same netlink calls in the same order, and the
// same undoing of the steps already taken when a later one fails.

import (
	"fmt"
	"net"
	"runtime"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"
)

// renameToTemp gives a link the name temp_<index>, so that it cannot clash
// with a link of the other namespace, and returns it as it is now.
func renameToTemp(link netlink.Link) (netlink.Link, error) {
	temp := fmt.Sprintf("temp_%d", link.Attrs().Index)
	if err := netlink.LinkSetName(link, temp); err != nil {
		return nil, fmt.Errorf("failed to rename device %q to %q: %v", link.Attrs().Name, temp, err)
	}
	renamed, err := netlink.LinkByName(temp)
	if err != nil {
		return nil, fmt.Errorf("failed to find %q after rename to %q: %v", link.Attrs().Name, temp, err)
	}
	return renamed, nil
}

// injectLink moves the host link `name` into the namespace at nsPath as
// `newName`, up, with its host name as its alias.
func injectLink(nsPath, name, newName string) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	podNs, err := ns.GetNS(nsPath)
	if err != nil {
		return err
	}
	defer podNs.Close()

	link, err := netlink.LinkByName(name)
	if err != nil {
		return err
	}
	return moveIn(link, podNs, newName)
}

func moveIn(link netlink.Link, podNs ns.NetNS, newName string) (err error) {
	wasUp := link.Attrs().Flags&net.FlagUp != 0
	hostName := link.Attrs().Name
	hostNs, err := ns.GetCurrentNS()
	if err != nil {
		return fmt.Errorf("failed to get host namespace: %v", err)
	}

	if err = netlink.LinkSetDown(link); err != nil {
		return fmt.Errorf("failed to set %q down: %v", hostName, err)
	}
	defer func() {
		if err != nil && wasUp && link != nil {
			_ = netlink.LinkSetUp(link)
		}
	}()

	if link, err = renameToTemp(link); err != nil {
		return fmt.Errorf("failed to rename device %q to temporary name: %v", hostName, err)
	}
	defer func() {
		if err != nil && link != nil {
			_ = netlink.LinkSetName(link, hostName)
		}
	}()

	if err = netlink.LinkSetNsFd(link, int(podNs.Fd())); err != nil {
		return fmt.Errorf("failed to move %q to container ns: %v", link.Attrs().Name, err)
	}

	temp := link.Attrs().Name
	err = podNs.Do(func(_ ns.NetNS) (inner error) {
		moved, inner := netlink.LinkByName(temp)
		if inner != nil {
			return fmt.Errorf("failed to find %q: %v", temp, inner)
		}
		// Back to the host namespace if a later step fails; the host's view
		// of the link is what the outer undo steps then act on.
		defer func() {
			if inner != nil {
				_ = netlink.LinkSetNsFd(moved, int(hostNs.Fd()))
				_ = hostNs.Do(func(_ ns.NetNS) error {
					link, _ = netlink.LinkByName(temp)
					return nil
				})
			}
		}()
		if inner = netlink.LinkSetAlias(moved, hostName); inner != nil {
			return fmt.Errorf("failed to set alias to %q: %v", temp, inner)
		}
		if inner = netlink.LinkSetName(moved, newName); inner != nil {
			return fmt.Errorf("failed to rename device %q to %q: %v", temp, newName, inner)
		}
		defer func() {
			if inner != nil {
				_ = netlink.LinkSetName(moved, temp)
			}
		}()
		if inner = netlink.LinkSetUp(moved); inner != nil {
			return fmt.Errorf("failed to set %q up: %v", newName, inner)
		}
		defer func() {
			if inner != nil {
				_ = netlink.LinkSetDown(moved)
			}
		}()
		// As upstream: read again into the link the undo steps above use.
		if moved, inner = netlink.LinkByName(newName); inner != nil {
			return fmt.Errorf("failed to find %q: %v", newName, inner)
		}
		return nil
	})
	return err
}

// releaseLink moves the link `newName` of the namespace at nsPath back to
// the host under its alias, down.
func releaseLink(nsPath, newName string) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	podNs, err := ns.GetNS(nsPath)
	if err != nil {
		return err
	}
	defer podNs.Close()
	return moveOut(podNs, newName)
}

func moveOut(podNs ns.NetNS, newName string) error {
	hostNs, err := ns.GetCurrentNS()
	if err != nil {
		return err
	}
	defer hostNs.Close()

	var temp string
	var original netlink.Link
	err = podNs.Do(func(_ ns.NetNS) (inner error) {
		link, inner := netlink.LinkByName(newName)
		if inner != nil {
			return fmt.Errorf("failed to find %q: %v", newName, inner)
		}
		original = link
		if inner = netlink.LinkSetDown(link); inner != nil {
			return fmt.Errorf("failed to set %q down: %v", newName, inner)
		}
		// Undone so that a release can be tried again: the name back, and
		// up again unless it was down already.
		defer func() {
			if inner != nil {
				_ = netlink.LinkSetName(link, newName)
				if link.Attrs().Flags&net.FlagUp != 0 {
					_ = netlink.LinkSetUp(link)
				}
			}
		}()
		renamed, inner := renameToTemp(link)
		if inner != nil {
			return fmt.Errorf("failed to rename device %q to temporary name: %v", newName, inner)
		}
		link = renamed
		temp = link.Attrs().Name
		if inner = netlink.LinkSetNsFd(link, int(hostNs.Fd())); inner != nil {
			return fmt.Errorf("failed to move %q to host netns: %v", temp, inner)
		}
		return nil
	})
	if err != nil {
		return err
	}

	back, err := netlink.LinkByName(temp)
	if err != nil {
		return fmt.Errorf("failed to find %q in host namespace: %v", temp, err)
	}
	if err = netlink.LinkSetName(back, back.Attrs().Alias); err != nil {
		// Into the pod's namespace again, as it was, so that it can be released later.
		defer func() {
			_ = netlink.LinkSetNsFd(back, int(podNs.Fd()))
			_ = podNs.Do(func(_ ns.NetNS) error {
				link, err := netlink.LinkByName(temp)
				if err != nil {
					return err
				}
				_ = netlink.LinkSetName(link, newName)
				if original.Attrs().Flags&net.FlagUp != 0 {
					_ = netlink.LinkSetUp(link)
				}
				return nil
			})
		}()
		return fmt.Errorf("failed to restore %q to original name %q: %v", temp, back.Attrs().Alias, err)
	}
	return nil
}
