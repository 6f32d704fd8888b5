package live

// MaxResponseModels is the number of response models a Recorder keeps
// for one identity (a Key without its response model): the response model
// comes from the server, which answers a model with one name or a few (a
// dated version, a rollout). The label sets of further response models
// of the identity are kept under the response model Other, and
// llmmetrics_label_set_overflow_total counts their observations. The
// failures' label set, with no response model, is not among them.
const MaxResponseModels = 4

// identity returns the part of a label set the client's request decides:
// the key without its response model, which the server's answer decides
// (a failed request, which got no answer, has none). The limit of
// Options.MaxLabelSets counts identities, so that a model's failures
// follow its successes.
func (k Key) identity() Key {
	k.ResponseModel = ""
	return k
}

// admission is what an identity holds: its label sets, and how many of
// them have a response model of their own (not "" nor Other).
type admission struct {
	sets, models int
}

// ownModel reports whether a response model counts toward
// MaxResponseModels.
func ownModel(m string) bool { return m != "" && m != Other }

// admit returns the key a label set the recorder does not hold yet (a
// clean key) is to be kept under: k itself while there is room; otherKey
// when its identity is new and the recorder holds Options.MaxLabelSets
// identities; k with the response model Other when its identity holds
// MaxResponseModels response models. It is called with rec.mu held.
func (rec *Recorder) admit(k Key) Key {
	if k == otherKey {
		return k
	}
	a := rec.idents[k.identity()]
	switch {
	case a == nil && rec.opt.MaxLabelSets > 0 && len(rec.idents) >= rec.opt.MaxLabelSets:
		return otherKey
	case a != nil && ownModel(k.ResponseModel) && a.models >= MaxResponseModels:
		k.ResponseModel = Other
	}
	return k
}

// hold notes that the recorder now holds label set k (d = 1) or no
// longer does (d = -1). It is called with rec.mu held.
func (rec *Recorder) hold(k Key, d int) {
	if k == otherKey {
		return
	}
	id := k.identity()
	a := rec.idents[id]
	if a == nil {
		a = &admission{}
		rec.idents[id] = a
	}
	a.sets += d
	if ownModel(k.ResponseModel) {
		a.models += d
	}
	if a.sets <= 0 {
		delete(rec.idents, id)
	}
}
